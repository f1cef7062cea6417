import type { Tenant } from '../support/server.ts'

/**
 * What an aggregates answer should hold, worked out in memory from the records themselves: the
 * tests' independent second opinion on the SQL.
 */

export type Row = Record<string, unknown>

/** The UTC day, ISO week (from Monday) or month an ISO instant falls in, as its starting instant. */
export function bucketOf(iso: string, bucket: 'day' | 'week' | 'month'): string {
  const date = new Date(iso)
  if (bucket === 'month') return `${iso.slice(0, 7)}-01T00:00:00.000Z`
  const day = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())
  const back = bucket === 'week' ? (date.getUTCDay() + 6) % 7 : 0
  return new Date(day - back * 86_400_000).toISOString()
}

/** A `group_by` key: the field's JSON name and its bucket. */
export interface Key {
  field: string
  bucket?: 'day' | 'week' | 'month'
}

/** `status,created_at:day` as keys. */
export const keysOf = (groupBy: string): Key[] =>
  groupBy === ''
    ? []
    : groupBy.split(',').map((part) => {
        const [name, bucket] = part.split(':')
        const field = name!.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
        return bucket ? { field, bucket: bucket as Key['bucket'] } : { field }
      })

/** Null is the greatest value, as the API sorts it. */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0
  if (a === null || a === undefined) return 1
  if (b === null || b === undefined) return -1
  if (typeof a === 'boolean' || typeof a === 'number') return Number(a) - Number(b)
  return String(a) < String(b) ? -1 : 1
}

/**
 * The groups of `records` by `keys`, each with `count`, and `sum`, `avg`, `min`, `max` of every
 * field of `fields` present (`sum: {amount: ...}`), sorted by the keys ascending.
 */
export function groupsOf(
  records: readonly object[],
  keys: Key[],
  fields: { sum?: string[]; avg?: string[]; min?: string[]; max?: string[] } = {},
): Row[] {
  const groups = new Map<string, { key: Row; members: Row[] }>()
  for (const record of records as Row[]) {
    const key: Row = {}
    for (const k of keys) {
      const value = record[k.field] ?? null
      key[k.field] = k.bucket && value !== null ? bucketOf(value as string, k.bucket) : value
    }
    const id = JSON.stringify(keys.map((k) => key[k.field]))
    const group = groups.get(id) ?? { key, members: [] }
    group.members.push(record)
    groups.set(id, group)
  }
  if (keys.length === 0 && groups.size === 0) groups.set('[]', { key: {}, members: [] })
  const items = [...groups.values()].map(({ key, members }) => {
    const item: Row = { ...key, count: members.length }
    const numbers = (f: string) => members.map((m) => m[f]).filter((v) => v !== null) as number[]
    for (const f of fields.sum ?? [])
      item.sum = { ...(item.sum as Row), [f]: numbers(f).reduce((s, v) => s + v, 0) }
    for (const f of fields.avg ?? []) {
      const values = numbers(f)
      const avg = values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length
      item.avg = { ...(item.avg as Row), [f]: avg }
    }
    for (const fn of ['min', 'max'] as const)
      for (const f of fields[fn] ?? []) {
        const values = members.map((m) => m[f]).filter((v) => v !== null)
        const sorted = values.sort(compareValues)
        item[fn] = { ...(item[fn] as Row), [f]: (fn === 'min' ? sorted[0] : sorted.at(-1)) ?? null }
      }
    return item
  })
  return items.sort((a, b) => {
    for (const k of keys) {
      const c = compareValues(a[k.field], b[k.field])
      if (c !== 0) return c
    }
    return 0
  })
}

/** Every item of an aggregates walk from `path`, following `pagination.next` (each page a 200). */
export async function walkGroups(t: Tenant, path: string): Promise<Row[]> {
  const items: Row[] = []
  let next: string | null = path
  for (let pages = 0; next; pages++) {
    if (pages > 100) throw new Error(`more than 100 pages from ${path}`)
    const response = await t.fetch(next)
    if (response.status !== 200) throw new Error(`GET ${next}: ${response.status} ${await response.text()}`)
    const body = (await response.json()) as { data: Row[]; pagination: { next: string | null } }
    items.push(...body.data)
    next = body.pagination.next
  }
  return items
}
