/** Options that take no value. */
const FLAGS = new Set([
  'all',
  'include-total',
  'confirm',
  'web',
  'client-credentials',
  'i',
  'include',
  'help',
  'h',
  'version',
  'verbose',
  'force',
  'dry-run',
])

/**
 * Option values exactly as typed. The option parser turns number-like text into numbers, which
 * would lose leading zeros (`--postal-code 01234`) and exponents; values are read from here.
 */
export function rawOptions(argv: string[]): Map<string, string[]> {
  const found = new Map<string, string[]>()
  const add = (name: string, value: string) => found.set(name, [...(found.get(name) ?? []), value])
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') break
    const match = /^--?([^=]+)(?:=([\s\S]*))?$/.exec(arg)
    if (!match || /^-\d/.test(arg)) continue
    const [, name, inline] = match
    if (inline !== undefined) add(name!, inline)
    else if (!FLAGS.has(name!) && i + 1 < argv.length) add(name!, argv[++i]!)
    else add(name!, 'true')
  }
  return found
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/** The parser's options with every value replaced by its text (a list when repeated). */
export function withRawValues(
  options: Record<string, unknown>,
  raw: Map<string, string[]>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...options }
  for (const [name, values] of raw) {
    const key = name.length === 1 ? name : camel(name)
    if (!(key in options) || typeof options[key] === 'boolean') continue
    out[key] = values.length === 1 ? values[0] : values
  }
  return out
}

/**
 * `--sort -amount` as `--sort=-amount` and `--input -` as `--input=-`: the option parser would
 * otherwise read a value that starts with a dash as short flags (or standard input's `-` as no
 * value) and report the value missing. Only options that take a value are joined, as rawOptions
 * reads them. A lone `-` left is an argument naming standard input (STDIN_ARGUMENT).
 */
export function joinDashedValues(argv: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') return [...out, ...argv.slice(i)]
    const name = /^--([^=]+)$/.exec(arg)?.[1]
    const next = argv[i + 1]
    if (name && !FLAGS.has(name) && next !== undefined && /^-(?!-)/.test(next)) {
      out.push(`${arg}=${next}`)
      i++
    } else out.push(arg === '-' ? STDIN_ARGUMENT : arg)
  }
  return out
}

/**
 * What an argument `-` (standard input, `api batch -`) reaches a command as: the option parser
 * drops a lone `-`, so it is passed on as the path that names standard input.
 */
export const STDIN_ARGUMENT = '/dev/stdin'
