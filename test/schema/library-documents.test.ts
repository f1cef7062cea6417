import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { orgWithUsers, PASSWORD, PageAgent, pkce, registerClient } from '../oauth/support.ts'
import { fixtures } from '../support/example-values.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Receiver, startReceiver } from '../webhooks/receiver.ts'

/**
 * What a server of the contract's library tells its clients, all from the declaration: both
 * OpenAPI documents (paths, nested paths, the action, QUERY operations), the scopes its
 * authorization server offers and the consent page's words for them, and the event types its
 * webhooks deliver.
 */

const schema = librarySchema()
let server: TestServer
let tenant: Tenant
let receiver: Receiver

beforeAll(async () => {
  server = await startTestServer({
    schema,
    webhooks: { allowHttp: true, scheduleMs: [200, 200], pollMs: 50, attemptTimeoutMs: 1_000 },
  })
  tenant = await server.tenant()
  receiver = startReceiver()
})

afterAll(async () => {
  receiver?.stop()
  await server?.stop()
})

type Operations = Record<string, { operationId?: string; description?: string } | undefined>

async function documentOf(version: string) {
  const response = await server.fetch(`/api/${version}/openapi.json`)
  expect(response.status).toBe(200)
  return (await response.json()) as { paths: Record<string, Operations>; openapi: string }
}

describe.each([
  ['v1', 'x-query'],
  ['v2', 'query'],
])('the %s OpenAPI document of the library', (version, queryField) => {
  it.each([
    [`/api/${version}/authors`, ['get', 'post', queryField]],
    [`/api/${version}/books/{id}`, ['get', 'put', 'patch', 'delete']],
    [`/api/${version}/books/{parentId}/chapters`, ['get', 'post', queryField]],
    [`/api/${version}/chapters/{id}`, ['get']],
    [`/api/${version}/books/{id}/lend`, ['post']],
    [`/api/${version}/search`, ['get', queryField]],
  ])('has %s with %p', async (path, methods) => {
    const item = (await documentOf(version)).paths[path]
    expect(item).toBeDefined()
    for (const method of methods) expect([method, item![method] !== undefined]).toEqual([method, true])
  })

  it('names no collection of the built-in example', async () => {
    const text = JSON.stringify(await documentOf(version))
    for (const name of ['orders', 'products', 'line-items', 'posts', 'comments', 'addresses'])
      expect([name, text.includes(`/${name}`) || text.includes(`$.${name}`)]).toEqual([name, false])
  })

  it('says the action lend records book.lent', async () => {
    const lend = (await documentOf(version)).paths[`/api/${version}/books/{id}/lend`]!.post!
    expect(lend.description).toContain('book.lent')
  })
})

describe("the library's scopes", () => {
  const SCOPES = [
    'read:authors',
    'write:authors',
    'delete:authors',
    'read:books',
    'write:books',
    'read:chapters',
  ]

  it('are offered by the authorization server metadata', async () => {
    const metadata = (await (await server.fetch('/.well-known/oauth-authorization-server')).json()) as {
      scopes_supported: string[]
    }
    expect(metadata.scopes_supported).toEqual([...schema.scopes])
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(SCOPES))
  })

  it.each([
    ['read:books', 'Read books'],
    ['write:chapters', 'Create, change and delete chapters'],
    ['delete:authors', 'Delete whole collections of authors at once'],
  ])('are shown on the consent page: %s as "%s"', async (scope, words) => {
    const org = await orgWithUsers(server, `Library ${scope}`)
    const client = await registerClient(server, {
      orgId: org.orgId,
      public: true,
      name: 'Catalogue',
      redirectUris: ['http://127.0.0.1/cb'],
    })
    const { challenge, state } = await pkce()
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: 'http://127.0.0.1:8300/cb',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state,
      scope,
    })
    const agent = new PageAgent(server.url)
    const login = await agent.submit(await (await agent.get(`/oauth/authorize?${query}`)).text(), 'login', {
      email: org.admin.email,
      password: PASSWORD,
    })
    expect(login.status).toBe(303)
    const page = await (await agent.get(login.headers.get('location')!)).text()
    expect(page).toContain(words)
  })
})

describe("the library's webhooks", () => {
  it('deliver book.created and book.lent to an endpoint that asks for them, and nothing else', async () => {
    const endpoint = await tenant.fetch('/api/v2/webhook-endpoints', {
      method: 'POST',
      json: { url: receiver.url, eventTypes: ['book.created', 'book.lent'] },
    })
    expect(endpoint.status).toBe(201)
    const made = fixtures(schema, tenant)
    const book = await made.create('books')
    await made.create('chapters')
    expect((await tenant.fetch(`/api/v2/books/${book.id}/lend`, { method: 'POST' })).status).toBe(200)
    // Order is not promised across retries (docs/webhooks.md), and a busy machine may retry.
    const received = await receiver.waitFor(2, 15_000)
    await Bun.sleep(300)
    const types = new Set(receiver.received.map((r) => JSON.parse(r.body).type))
    expect([...types].sort()).toEqual(['book.created', 'book.lent'])
    expect(received.map((r) => JSON.parse(r.body).data.id)).toEqual([book.id, book.id])
  })
})
