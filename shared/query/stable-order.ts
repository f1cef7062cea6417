import type { SortKey } from './types.ts'

/** The sort keys with the id added as the last tie-breaker (unless named), so that pages are stable. */
export function stableOrder(sort: SortKey[]): SortKey[] {
  return sort.some((k) => k.field === 'id')
    ? sort
    : [...sort, { field: 'id', descending: sort.at(-1)?.descending ?? true }]
}
