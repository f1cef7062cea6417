/**
 * Where a problem is in a schema file, as its lines name it: keys joined by dots, list items in
 * brackets (`resources.books.fields.status.values[2]`), as the API's details name a body's places.
 */

/** A key that would read wrongly between dots is quoted. */
const segment = (key: string) => (/^[^.[\]\s"]+$/.test(key) ? key : JSON.stringify(key))

/** The place of a list of keys and indexes. */
export function place(...keys: (string | number)[]): string {
  let out = ''
  for (const key of keys)
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${segment(key)}`
  return out === '' ? '(the file)' : out
}

/** The place a JSON Pointer (RFC 6901) names; a segment of digits is a list index. */
export function placeOf(pointer: string): string {
  const keys = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
  return place(...keys.map((k) => (/^\d+$/.test(k) ? Number(k) : k)))
}
