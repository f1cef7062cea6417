import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { LIBRARY } from '../support/library.ts'
import type { Tenant, TestServer } from '../support/server.ts'

/**
 * The contract's library plus `gadgets`, a collection with a field of every type a schema file
 * declares (nullable or defaulted where a CSV cell may be empty), for the imports' tests.
 */
const IMPORT_DECLARATION: SchemaDeclaration = {
  resources: {
    ...LIBRARY.resources,
    gadgets: {
      singular: 'gadget',
      prefix: 'gdg',
      fields: {
        name: { type: 'text', max: 100 },
        note: { type: 'text', min: 0, max: 100, nullable: true },
        code: { type: 'text', max: 20, unique: true, nullable: true },
        count: { type: 'integer', min: 0, max: 1000, nullable: true },
        active: { type: 'boolean', default: true },
        kind: { type: 'enum', values: ['small', 'large'], default: 'small' },
        madeAt: { type: 'timestamp', nullable: true },
        meta: { type: 'json', nullable: true },
        tags: { type: 'list', maxItems: 5, maxLength: 20, nullable: true },
        ownerId: { type: 'reference', to: 'users', nullable: true },
      },
    },
  },
} as SchemaDeclaration

export const importSchema = (): Schema => schemaFromDeclaration(IMPORT_DECLARATION)

/** POST of a CSV or NDJSON body to `path` as the tenant. */
export function post(
  tenant: Tenant,
  path: string,
  type: 'text/csv' | 'application/x-ndjson',
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return tenant.fetch(path, { method: 'POST', headers: { 'Content-Type': type, ...headers }, body })
}

/** How many rows of `table` and events of `resource` the organization has. */
export async function counts(server: TestServer, orgId: string, table: string, resource: string) {
  const rows = await server.sql.get<{ n: number | string }>(
    `SELECT count(*) AS n FROM ${table} WHERE org_id = ?`,
    [orgId],
  )
  const events = await server.sql.get<{ n: number | string }>(
    'SELECT count(*) AS n FROM events WHERE org_id = ? AND resource = ?',
    [orgId, resource],
  )
  return { rows: Number(rows?.n), events: Number(events?.n) }
}

/** An author of the tenant's, through the API. */
export async function author(tenant: Tenant, name = 'Ursula'): Promise<string> {
  const response = await tenant.fetch('/api/v2/authors', { method: 'POST', json: { name } })
  if (response.status !== 201) throw new Error(`author: ${response.status} ${await response.text()}`)
  return ((await response.json()) as { id: string }).id
}
