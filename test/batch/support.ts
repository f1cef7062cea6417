import { expect } from 'bun:test'
import type { Tenant, TestServer } from '../support/server.ts'

interface BatchResult {
  status: number
  body: Record<string, unknown> | null
}

/** `POST /api/v2/batch` with `{operations}` (or, given one, the whole body as it is). */
export function sendBatch(
  tenant: Pick<Tenant, 'fetch'>,
  operations: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return tenant.fetch('/api/v2/batch', { method: 'POST', json: { operations }, headers })
}

/** A batch that must succeed: its results. */
export async function batchOk(
  tenant: Pick<Tenant, 'fetch'>,
  operations: unknown,
  headers: Record<string, string> = {},
): Promise<BatchResult[]> {
  const response = await sendBatch(tenant, operations, headers)
  const text = await response.text()
  expect([response.status, text]).toEqual([200, expect.any(String)])
  return (JSON.parse(text) as { results: BatchResult[] }).results
}

/** The batch's failure: its status, code and the places its details name. */
export async function batchError(
  response: Response,
): Promise<{ status: number; code: string; fields: string[]; message: string }> {
  const body = (await response.json()) as {
    error: { code: string; message: string; details: { field: string }[] }
  }
  return {
    status: response.status,
    code: body.error.code,
    fields: body.error.details.map((d) => d.field),
    message: body.error.message,
  }
}

/** How many records and events an organization holds: what a failed batch must leave as it was. */
export async function footprint(server: TestServer, orgId: string, tables: string[]): Promise<number[]> {
  return await Promise.all([...tables, 'events'].map((table) => server.sql.count(table, orgId)))
}
