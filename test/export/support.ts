import { expect } from 'bun:test'
import { parse } from 'csv-parse/sync'
import type { Tenant } from '../support/server.ts'

export const CSV = 'text/csv; charset=utf-8; header=present'
export const NDJSON = 'application/x-ndjson'

/** The rows of a CSV answer, header first, as a standard reader sees them. */
export function csvRows(text: string): string[][] {
  return parse(text, { record_delimiter: '\r\n', relax_column_count: false }) as string[][]
}

/** The `rel="next"` target of a Link header, if any. */
export function nextLink(link: string | null): string | null {
  return /<([^>]*)>\s*;\s*rel="next"/.exec(link ?? '')?.[1] ?? null
}

/**
 * Every page of a list as CSV, following Link from `path` to the end: each page's header and
 * data rows, in order.
 */
export async function walkCsv(
  tenant: Tenant,
  path: string,
): Promise<{ headers: string[][]; rows: string[][] }> {
  const headers: string[][] = []
  const rows: string[][] = []
  let next: string | null = path
  for (let pages = 0; next !== null; pages++) {
    if (pages > 100) throw new Error('more than 100 pages')
    const response = await tenant.fetch(next, { headers: { Accept: 'text/csv' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe(CSV)
    const [header, ...data] = csvRows(await response.text())
    headers.push(header!)
    rows.push(...data)
    next = nextLink(response.headers.get('link'))
  }
  return { headers, rows }
}
