import { invalid } from '../../shared/errors.ts'

/**
 * `${ref.field}` references of a batch (docs/bulk.md, "Atomic batches"): an earlier operation's
 * result, by the `ref` it was given, and a field of it (`${a.id}`, `${o.amount.value}` for a
 * member of an object). `\${` stands for a literal `${`.
 */
export interface Reference {
  ref: string
  /** The field, and the members below it (`['amount', 'value']`). */
  path: string[]
  /** As written, `${a.id}`. */
  text: string
}

/** Literal text, or a reference. */
type Part = string | Reference

/** What an operation's `ref` may be: a name to write inside `${...}`. */
export const REF_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/
const INSIDE = /^([A-Za-z_][A-Za-z0-9_-]{0,63})((?:\.[A-Za-z_][A-Za-z0-9_]{0,99})+)$/

/** A string of a batch that cannot be read as text with references: 422 naming its place. */
function notAReference(place: string, message: string) {
  return invalid('A batch holds a malformed reference.', [{ field: place, message }])
}

/**
 * The parts of `text`, or a 422 naming `place` when a `${` does not start a reference. A `${`
 * after an odd number of backslashes is literal (`\${a.id}` is the text `${a.id}`), and each
 * pair of backslashes before it stands for one; backslashes anywhere else, and text without `${`,
 * stay as they are.
 */
export function parseTemplate(text: string, place: string): Part[] {
  const parts: Part[] = []
  let literal = ''
  let i = 0
  for (let at = text.indexOf('${', i); at !== -1; at = text.indexOf('${', i)) {
    let slashes = 0
    while (at - slashes - 1 >= i && text[at - slashes - 1] === '\\') slashes++
    literal += text.slice(i, at - slashes) + '\\'.repeat(Math.floor(slashes / 2))
    if (slashes % 2 === 1) {
      literal += '${'
      i = at + 2
      continue
    }
    const end = text.indexOf('}', at + 2)
    const inside = end === -1 ? null : INSIDE.exec(text.slice(at + 2, end))
    if (!inside)
      throw notAReference(
        place,
        `${text.slice(at, end === -1 ? at + 30 : end + 1).slice(0, 100)} is not a reference \${ref.field}; write \\\${ for a literal \${`,
      )
    if (literal) parts.push(literal)
    literal = ''
    parts.push({ ref: inside[1]!, path: inside[2]!.slice(1).split('.'), text: text.slice(at, end + 1) })
    i = end + 1
  }
  literal += text.slice(i)
  if (literal || parts.length === 0) parts.push(literal)
  return parts
}

/** Every string of a JSON value with its place (`operations[1].body.tags[0]`). */
export function* stringsOf(value: unknown, place: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [value, place]
  else if (Array.isArray(value))
    for (const [i, item] of value.entries()) yield* stringsOf(item, `${place}[${i}]`)
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) yield* stringsOf(item, `${place}.${key}`)
}

/** The value a reference names in the results so far, or a 422 naming `place`. */
function lookUp(reference: Reference, results: ReadonlyMap<string, unknown>, place: string): unknown {
  let value = results.get(reference.ref)
  for (const [depth, name] of reference.path.entries()) {
    const holder = value
    value =
      holder !== null && typeof holder === 'object' && !Array.isArray(holder) && Object.hasOwn(holder, name)
        ? (holder as Record<string, unknown>)[name]
        : undefined
    if (value === undefined) {
      const field = reference.path.slice(0, depth + 1).join('.')
      throw notResolved(place, `${reference.text}: the result of ${reference.ref} has no field ${field}`)
    }
  }
  return value
}

function notResolved(place: string, message: string) {
  return invalid('A reference of the batch cannot be resolved.', [{ field: place, message }])
}

/**
 * A string with its references replaced: one reference alone takes the referenced value with its
 * JSON type; inside longer text a string, number or boolean is written as text, and anything else
 * is 422 (no text shows null or an object as the client meant it).
 */
export function substitute(text: string, results: ReadonlyMap<string, unknown>, place: string): unknown {
  const parts = parseTemplate(text, place)
  const only = parts[0]
  if (parts.length === 1 && typeof only === 'string') return only
  if (parts.length === 1 && only !== undefined && typeof only !== 'string')
    return lookUp(only, results, place)
  let out = ''
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part
      continue
    }
    const value = lookUp(part, results, place)
    if (typeof value === 'object' || value === null)
      throw notResolved(
        place,
        `${part.text} is ${value === null ? 'null' : 'an object'} and cannot be part of a text`,
      )
    out += String(value)
  }
  return out
}

/** A JSON value with every string's references replaced. */
export function substituteAll(value: unknown, results: ReadonlyMap<string, unknown>, place: string): unknown {
  if (typeof value === 'string') return substitute(value, results, place)
  if (Array.isArray(value)) return value.map((item, i) => substituteAll(item, results, `${place}[${i}]`))
  if (value === null || typeof value !== 'object') return value
  // fromEntries defines own members: a `__proto__` member stays a member, as JSON.parse made it.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, substituteAll(item, results, `${place}.${key}`)]),
  )
}
