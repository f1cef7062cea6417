/** "Did you mean" for both programs: the CLI (`api lsit`) and the server (`api-server serve --prot`). */

/**
 * Edit distance for "did you mean" suggestions: insertions, deletions, substitutions and swaps of
 * two neighbouring letters (`lsit` is one step from `list`, two from `set`), each counting one.
 */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

/** The closest candidate, when it is close enough to be what was meant. */
export function suggest(input: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined
  for (const name of candidates) {
    const d = distance(input, name)
    if (!best || d < best.d) best = { name, d }
  }
  return best && best.d <= Math.max(2, Math.floor(input.length / 3)) ? best.name : undefined
}
