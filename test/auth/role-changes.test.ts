import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Client, createClient } from 'graphql-ws'
import { codeFlow, discover, orgWithUsers, postForm, registerClient } from '../oauth/support.ts'
import { productBody } from '../rest/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/** A role caps a user token's scopes as the role is at each request, not as it was at issue. */
let server: TestServer
let organizations = 0
const REDIRECT = 'https://app.example/callback'

beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

/** A fresh organization: its users, a web app for their tokens, and a service token to change roles. */
async function organization() {
  organizations += 1
  const org = await orgWithUsers(server, `Org ${organizations}`)
  const web = await registerClient(server, {
    orgId: org.orgId,
    redirectUris: [REDIRECT],
    grantTypes: ['authorization_code'],
  })
  const config = await discover(server, web.id, web.secret)
  const service = await registerClient(server, { orgId: org.orgId })
  const answer = await postForm(server, '/oauth/token', {
    grant_type: 'client_credentials',
    client_id: service.id,
    client_secret: service.secret!,
  })
  const { access_token: serviceToken } = (await answer.json()) as { access_token: string }
  /** A user token from a real authorization-code grant; the scope is what the role allowed then. */
  const login = async (email: string) => {
    const tokens = await codeFlow(server, config, REDIRECT, email)
    return { token: tokens.access_token, scope: tokens.scope!.split(' ') }
  }
  /** PATCH /api/v1/users/{id} {"role"}, as an administrator's tool would. */
  const setRole = async (userId: string, role: string) => {
    const response = await call(serviceToken, 'PATCH', `/api/v1/users/${userId}`, { role })
    expect(response.status).toBe(200)
  }
  return { ...org, web, login, setRole }
}

function call(token: string, method: string, path: string, json?: unknown) {
  return server.fetch(path, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  })
}

const create = (token: string) => call(token, 'POST', '/api/v1/products', productBody())
const bulkDelete = (token: string) => call(token, 'DELETE', '/api/v1/products?confirm=products')

const CREATE_PRODUCT = `mutation($input: CreateProductInput!) { createProduct(input: $input) { id } }`

async function graphqlMutation(token: string) {
  const response = await call(token, 'POST', '/graphql', {
    query: CREATE_PRODUCT,
    variables: { input: productBody() },
  })
  return (await response.json()) as { data: unknown; errors?: { extensions: { code: string } }[] }
}

async function expectForbidden(response: Response, scope: string) {
  expect(response.status).toBe(403)
  const body = (await response.json()) as {
    error: { code: string; details: { field: string; message: string }[] }
  }
  expect(body.error.code).toBe('FORBIDDEN')
  expect(body.error.details).toEqual([{ field: 'scope', message: `requires ${scope}` }])
}

describe('a role change reaches the tokens already issued', () => {
  it('a demoted admin gets 403 on POST and bulk DELETE on the very next request, and GraphQL mutations fail', async () => {
    const org = await organization()
    const { token, scope } = await org.login(org.admin.email)
    expect(scope).toContain('delete:products')
    expect((await create(token)).status).toBe(201)

    await org.setRole(org.admin.id, 'viewer')
    await expectForbidden(await create(token), 'write:products')
    await expectForbidden(await bulkDelete(token), 'delete:products')
    const mutation = await graphqlMutation(token)
    expect(mutation.data).toBeNull()
    expect(mutation.errors?.map((e) => e.extensions.code)).toEqual(['FORBIDDEN'])
    // A viewer still reads.
    expect((await call(token, 'GET', '/api/v1/products')).status).toBe(200)
  })

  it('a promotion gives back what the token was issued with, never more', async () => {
    const org = await organization()
    const admin = await org.login(org.admin.email)
    const member = await org.login(org.member.email)
    expect(member.scope).not.toContain('delete:products')
    await org.setRole(org.admin.id, 'viewer')
    await expectForbidden(await bulkDelete(admin.token), 'delete:products')

    await org.setRole(org.admin.id, 'admin')
    expect((await create(admin.token)).status).toBe(201)
    expect((await bulkDelete(admin.token)).status).toBe(204)

    await org.setRole(org.member.id, 'admin')
    expect((await create(member.token)).status).toBe(201)
    await expectForbidden(await bulkDelete(member.token), 'delete:products')
  })

  it('a change committed by another process (an admin tool on the database) applies within 250 ms', async () => {
    const org = await organization()
    const { token } = await org.login(org.member.email)
    expect((await create(token)).status).toBe(201)
    // The test's own connection to the database file stands for another process.
    await server.sql.run("UPDATE users SET role = 'viewer' WHERE id = ?", org.member.id)
    await Bun.sleep(300)
    await expectForbidden(await create(token), 'write:products')
  })

  it('introspection reports the scope the token carries now', async () => {
    const org = await organization()
    const { token } = await org.login(org.member.email)
    await org.setRole(org.member.id, 'viewer')
    const introspect = await postForm(server, '/oauth/introspect', {
      token,
      client_id: org.web.id,
      client_secret: org.web.secret!,
    })
    const info = (await introspect.json()) as { active: boolean; scope: string }
    expect(info.active).toBe(true)
    expect(info.scope.split(' ').every((s) => s.startsWith('read:'))).toBe(true)
    expect(info.scope).toContain('read:products')
  })
})

describe('GraphQL over WebSocket', () => {
  it('caps an operation started after the demotion, on a socket opened before it', async () => {
    const org = await organization()
    const { token } = await org.login(org.admin.email)
    const client: Client = createClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql`,
      connectionParams: { Authorization: `Bearer ${token}` },
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    })
    const mutate = async () =>
      (await client.iterate({ query: CREATE_PRODUCT, variables: { input: productBody() } }).next()).value as {
        data: unknown
        errors?: { extensions: { code: string } }[]
      }
    try {
      expect((await mutate()).errors).toBeUndefined()
      await org.setRole(org.admin.id, 'viewer')
      const refused = await mutate()
      expect(refused.data).toBeNull()
      expect(refused.errors?.map((e) => e.extensions.code)).toEqual(['FORBIDDEN'])
    } finally {
      await client.dispose()
    }
  })
})
