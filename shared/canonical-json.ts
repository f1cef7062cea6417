/**
 * JSON with every object's members sorted by name, at every depth (members whose value is
 * undefined left out, as JSON.stringify does): two spellings of the same value (members in
 * another order, other white space) are one text, so it can be hashed and compared.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const record = value as Record<string, unknown>
  const members: string[] = []
  for (const name of Object.keys(record).sort()) {
    if (record[name] !== undefined) members.push(`${JSON.stringify(name)}:${canonicalJson(record[name])}`)
  }
  return `{${members.join(',')}}`
}
