import { expect } from 'bun:test'
import { KeyRing } from '../../server/auth/keys.ts'
import { issueAccessToken } from '../../server/auth/tokens.ts'
import { statementsOf as allStatementsOf, type TestSql } from '../support/backend.ts'
import type { Tenant, TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'

export const GRAPHQL_RESPONSE = 'application/graphql-response+json'

/** What a test reads from a response; the assertions that read it check its shape. */
// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by assertions, not types
export type Loose = any

export interface GraphQLErrorBody {
  message: string
  locations?: { line: number; column: number }[]
  path?: (string | number)[]
  extensions?: { code?: string; details?: { field: string; message: string }[]; reason?: string }
}

export interface GraphQLBody<D = Record<string, unknown>> {
  data?: D | null
  errors?: GraphQLErrorBody[]
}

interface Sent<D> {
  status: number
  contentType: string | null
  body: GraphQLBody<D>
  response: Response
}

/** POSTs an operation as a tenant (or with no token when `tenant` is null). */
export async function graphql<D = Record<string, Loose>>(
  server: TestServer,
  tenant: Tenant | null,
  query: string,
  variables?: Record<string, unknown>,
  options: { accept?: string; operationName?: string; token?: string } = {},
): Promise<Sent<D>> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: options.accept ?? GRAPHQL_RESPONSE,
  }
  const token = options.token ?? tenant?.token
  if (token) headers.Authorization = `Bearer ${token}`
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query, variables, operationName: options.operationName }),
  })
  const body = (await response.json()) as GraphQLBody<D>
  return { status: response.status, contentType: response.headers.get('content-type'), body, response }
}

/** The data of an operation that must succeed (200, no errors). */
export async function data<D = Record<string, Loose>>(
  server: TestServer,
  tenant: Tenant,
  query: string,
  variables?: Record<string, unknown>,
): Promise<D> {
  const sent = await graphql<D>(server, tenant, query, variables)
  expect(sent.body.errors).toBeUndefined()
  expect(sent.status).toBe(200)
  return sent.body.data as D
}

/** Asserts one error with this code (and detail fields), and returns it. */
export function expectGraphQLError(
  body: GraphQLBody<unknown>,
  code: string,
  fields?: string[],
): GraphQLErrorBody {
  expect(body.errors?.map((e) => e.extensions?.code)).toEqual([code])
  const error = body.errors![0]!
  expect(error.message.length).toBeGreaterThan(0)
  if (fields) expect(error.extensions?.details?.map((d) => d.field)).toEqual(fields)
  return error
}

/**
 * A token for the tenant's client that expires in `seconds`, signed with the server's own key:
 * the token endpoint only issues one-hour tokens, and expiry is what is being tested.
 */
export async function shortLivedToken(server: TestServer, tenant: Tenant, seconds: number, scope: string[]) {
  const past = () => Date.now() - 3600_000 + seconds * 1000
  const keys = new KeyRing(server.store, past)
  await keys.load()
  const { accessToken } = await issueAccessToken(
    { issuer: server.url, audience: server.url, keys, clock: past },
    { subject: tenant.clientId, orgId: tenant.orgId, clientId: tenant.clientId, scope },
  )
  return accessToken
}

/** A token of a second client of the tenant's organization, limited to `scope`. */
export async function scopedToken(server: TestServer, tenant: Tenant, scope: string[]): Promise<string> {
  const { client, secret } = await server.store.clients.create({
    name: 'scoped',
    orgId: tenant.orgId,
    public: false,
    scope,
  })
  return await clientToken(server.url, { id: client.id, secret: secret! })
}

/**
 * The statements that load records while `run` is under way, on either backend
 * (test/support/backend.ts). Authentication (key and revocation look-ups), the organization's
 * change stamp (read before a query, for the response cache; PRAGMA data_version on SQLite, the
 * newest event position on PostgreSQL), the collection's Last-Modified (cached until the next
 * write) and transaction control are the same for every
 * request, and the webhook worker reads its tables and the log's head in the background; the
 * statements that load records are counted.
 */
export async function statementsOf(sql: TestSql, run: () => Promise<unknown>): Promise<string[]> {
  return (await allStatementsOf(sql, run)).filter(
    (text) =>
      !/\b(oauth_\w+|signing_keys|webhook_\w+)\b|data_version|total_changes|max\(created_at\)|max\((rowid|seq)\) AS seq FROM events|^SELECT seq FROM events WHERE org_id >=|^\s*(BEGIN|COMMIT|ROLLBACK|SELECT \$1)\b/i.test(
        text,
      ),
  )
}
