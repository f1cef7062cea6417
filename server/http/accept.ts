/** One media range of an Accept header: `text/csv;q=0.5` is type `text`, subtype `csv`, weight 0.5. */
interface MediaRange {
  type: string
  subtype: string
  q: number
  /** How many parameters besides q it names: a range with more is more specific (RFC 9110 §12.5.1). */
  params: number
}

/** Most ranges one header may list; the rest are ignored, as a header no client needs. */
const MAX_RANGES = 64
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const WEIGHT = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/

/** The ranges of an Accept header; a malformed range is skipped, as if it were not there. */
function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = []
  for (const part of header.split(',').slice(0, MAX_RANGES)) {
    const [range, ...parameters] = part.split(';')
    const [type, subtype, extra] = range!.trim().toLowerCase().split('/')
    if (!type || !subtype || extra !== undefined || !TOKEN.test(type) || !TOKEN.test(subtype)) continue
    if (type === '*' && subtype !== '*') continue
    let q = 1
    let params = 0
    let valid = true
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=').map((s) => s.trim())
      if (name?.toLowerCase() !== 'q') {
        params += 1
        continue
      }
      if (value === undefined || !WEIGHT.test(value)) valid = false
      else q = Number(value)
    }
    if (valid) ranges.push({ type, subtype, q, params })
  }
  return ranges
}

/** The weight `ranges` give `offered` (`text/csv`): that of the most specific range matching it. */
function weightOf(ranges: readonly MediaRange[], offered: string): number {
  const [type, subtype] = offered.split('/')
  let best: { rank: number; q: number } | undefined
  for (const range of ranges) {
    let rank: number
    if (range.type === type && range.subtype === subtype) rank = 2 + range.params
    else if (range.type === type && range.subtype === '*') rank = 1
    else if (range.type === '*') rank = 0
    else continue
    if (!best || rank > best.rank) best = { rank, q: range.q }
  }
  return best?.q ?? 0
}

/**
 * The media type to answer with, of those `offered` (the default first), by the request's Accept
 * header (RFC 9110 §12.5.1): the one it weighs highest, ties going to the earlier offered; the
 * default without the header or when it lists no valid range; null when it excludes them all (406).
 */
export function negotiate(header: string | null, offered: readonly string[]): string | null {
  if (header === null) return offered[0] ?? null
  const ranges = parseAccept(header)
  if (ranges.length === 0) return offered[0] ?? null
  let chosen: string | null = null
  let weight = 0
  for (const type of offered) {
    const q = weightOf(ranges, type)
    if (q > weight) {
      chosen = type
      weight = q
    }
  }
  return chosen
}
