/**
 * The body of a create of an OAuth client, property-tested against a real server (seeded
 * fast-check): whatever `grantTypes`, `redirectUris` and `scopes` hold, the answer is 201 or 422,
 * never a 5xx; every refusal names one of those fields; and a body is taken exactly when each
 * value is one the server knows and the three fit together (docs/oauth.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { typedFields } from '../../cli/field-types.ts'
import { GRANT_TYPES } from '../../server/store/types.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

const SEED = 20261127
const SCHEMA = exampleSchema()
const CHECKED = ['grantTypes', 'redirectUris', 'scopes']

let server: TestServer
let tenant: Tenant

beforeAll(async () => {
  server = await startTestServer()
  tenant = await server.tenant()
})
afterAll(async () => await server.stop())

const GOOD_URIS = [
  'https://app.example/callback',
  'http://127.0.0.1:8080/callback',
  'com.example.app:/oauth',
  'https://a.example/cb?x=1',
]
const BAD_URIS = [
  '/relative',
  'https://a.example/#frag',
  'javascript:alert(1)',
  'data:text/html,hi',
  ' https://a.example/',
  'not a uri',
  '',
]
const BAD_GRANTS = ['password', 'implicit', 'CLIENT_CREDENTIALS', '']
const BAD_SCOPES = ['read:unicorns', 'READ:orders', 'read', '']

/** A value of one of the list fields: a list drawn from good and bad items, or no list at all. */
const listOf = (good: readonly string[], bad: readonly string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(fc.constantFrom(...good), { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.array(fc.constantFrom(...good, ...bad), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 'a string', 3, { a: 1 }, [1], [null]) },
  )

const body = fc.record(
  {
    public: fc.boolean(),
    grantTypes: listOf(GRANT_TYPES, BAD_GRANTS),
    redirectUris: listOf(GOOD_URIS, BAD_URIS),
    scopes: listOf(SCHEMA.scopes, BAD_SCOPES),
  },
  { requiredKeys: ['public'] },
)

/** Each item known, none twice, and at least one where the server needs one. */
function fine(value: unknown, good: readonly string[], needsOne: boolean): boolean {
  if (value === undefined) return true
  if (!Array.isArray(value) || new Set(value).size !== value.length) return false
  if (needsOne && value.length === 0) return false
  return value.every((item) => typeof item === 'string' && good.includes(item))
}

/** Whether the server must take the body (the model of docs/oauth.md's rules). */
function acceptable(b: Record<string, unknown>): boolean {
  if (!fine(b.grantTypes, GRANT_TYPES, true) || !fine(b.redirectUris, GOOD_URIS, false)) return false
  if (!fine(b.scopes, SCHEMA.scopes, true)) return false
  const grants =
    (b.grantTypes as string[] | undefined) ?? (b.public ? ['authorization_code'] : ['client_credentials'])
  if (b.public && grants.includes('client_credentials')) return false
  return !(
    grants.includes('authorization_code') && ((b.redirectUris as string[] | undefined) ?? []).length === 0
  )
}

async function post(b: Record<string, unknown>): Promise<{ status: number; fields: string[] }> {
  const response = await tenant.fetch('/api/v2/oauth-clients', {
    method: 'POST',
    json: { name: 'prop', ...b },
  })
  const answer = (await response.json()) as { error?: { details: { field: string }[] } }
  return { status: response.status, fields: answer.error?.details.map((d) => d.field) ?? [] }
}

describe('POST /api/v2/oauth-clients with any grantTypes, redirectUris and scopes', () => {
  it('answers 201 exactly for a body the rules allow, else 422 naming only those fields', async () => {
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const { status, fields } = await post(b)
        expect(status).toBe(acceptable(b) ? 201 : 422)
        if (status === 422) {
          expect(fields.length).toBeGreaterThan(0)
          for (const field of fields) expect(CHECKED).toContain(field.replace(/\[\d+\]$/, ''))
        }
      }),
      { seed: SEED, numRuns: 150 },
    )
  })

  it('never answers a 5xx to any strings in the lists', async () => {
    const anyList = fc.array(fc.string({ maxLength: 40 }), { maxLength: 3 })
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        anyList,
        anyList,
        anyList,
        async (isPublic, grantTypes, redirectUris, scopes) => {
          const { status, fields } = await post({ public: isPublic, grantTypes, redirectUris, scopes })
          expect([201, 422]).toContain(status)
          for (const field of fields) expect(CHECKED).toContain(field.replace(/\[\d+\]$/, ''))
        },
      ),
      { seed: SEED, numRuns: 100 },
    )
  })
})

describe("the CLI's key=value of a list field", () => {
  it('gives back the items it was made of, separated by commas', () => {
    const clients = SCHEMA.byName('oauth-clients')!
    const item = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !s.includes(',') && s.trim() === s)
    fc.assert(
      fc.property(fc.array(item, { maxLength: 5 }), (items) => {
        expect(typedFields(clients, { scopes: items.join(',') })).toEqual({ scopes: items })
      }),
      { seed: SEED },
    )
  })
})
