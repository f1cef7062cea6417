/** Reads a V8-format `.cpuprofile` (what `bun --cpu-prof` writes) into self and inclusive shares. */

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

export interface Share {
  name: string
  /** Fraction of all sampled time. */
  share: number
}

function parseProfile(text: string): CpuProfile {
  const value: unknown = JSON.parse(text)
  const p = value as Partial<CpuProfile>
  if (!Array.isArray(p.nodes) || !Array.isArray(p.samples) || !Array.isArray(p.timeDeltas))
    throw new Error('not a .cpuprofile (nodes, samples, timeDeltas)')
  return value as CpuProfile
}

/** Where sampled time went: by function itself (self) and with what it called (inclusive). */
export function summarizeProfile(text: string, root: string): { self: Share[]; inclusive: Share[] } {
  const profile = parseProfile(text)
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const name = (node: ProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame
    const file = url.startsWith('file://') || url.startsWith('/') ? url.replace(/^file:\/\//, '') : url
    const where = file.startsWith(root) ? file.slice(root.length + 1) : file || 'native'
    return `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`
  }
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  let total = 0
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0
    total += dt
    const node = nodes.get(id)
    if (!node) return
    self.set(name(node), (self.get(name(node)) ?? 0) + dt)
    // A recursive function counts once per sample.
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = name(nodes.get(at)!)
      if (seen.has(key)) continue
      seen.add(key)
      inclusive.set(key, (inclusive.get(key) ?? 0) + dt)
    }
  })
  const ranked = (m: Map<string, number>) =>
    [...m]
      .map(([n, t]) => ({ name: n, share: t / total }))
      .filter((s) => !s.name.startsWith('(root)'))
      .sort((a, b) => b.share - a.share)
  return { self: ranked(self), inclusive: ranked(inclusive) }
}
