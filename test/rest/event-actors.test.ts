import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createClient as createWsClient } from 'graphql-ws'
import { query as localQuery } from 'json-p3'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { newId } from '../../shared/ids.ts'
import { subscribe } from '../graphql/subscriptions.ts'
import { codeFlow, discover, orgWithUsers } from '../oauth/support.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Entity, readJson } from './fixtures.ts'

/** Contract: events carry `actor` ({type, id}) and `requestId` (the request's X-Request-Id); `actor_id` filters them. */

let server: TestServer
let service: Tenant
let org: Awaited<ReturnType<typeof orgWithUsers>>
let memberToken: string
let adminToken: string

beforeAll(async () => {
  server = await startTestServer()
  service = await server.tenant()
  org = await orgWithUsers(server, 'Actors')
  const cli = await discover(server, CLI_CLIENT_ID)
  const login = (email: string) => codeFlow(server, cli, 'http://127.0.0.1:5000/callback', email)
  memberToken = (await login(org.member.email)).access_token
  adminToken = (await login(org.admin.email)).access_token
})
afterAll(() => server.stop())

const send = (
  token: string,
  method: string,
  path: string,
  json?: unknown,
  headers: Record<string, string> = {},
) =>
  server.fetch(path, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(json === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  })

/** The events of one record, oldest first, as GET /api/v2/events serves them. */
async function eventsOf(token: string, resourceId: string): Promise<Entity[]> {
  const response = await send(token, 'GET', `/api/v2/events?resource_id=${resourceId}&sort=created_at`)
  expect(response.status).toBe(200)
  return (await readJson<{ data: Entity[] }>(response)).data
}

async function createPost(token: string, authorId: string, headers: Record<string, string> = {}) {
  const response = await send(token, 'POST', '/api/v2/posts', { authorId, title: 'Who wrote this?' }, headers)
  expect(response.status).toBe(201)
  return { post: await readJson(response), requestId: response.headers.get('x-request-id') }
}

describe('who made an event, and in which request', () => {
  it('records the user a token was issued for and the X-Request-Id the client sent', async () => {
    const { post, requestId } = await createPost(memberToken, org.member.id, {
      'X-Request-Id': 'checkout-42',
    })
    expect(requestId).toBe('checkout-42')
    const [created] = await eventsOf(memberToken, post.id)
    expect(created).toMatchObject({
      type: 'post.created',
      actor: { type: 'user', id: org.member.id },
      requestId: 'checkout-42',
    })
    const single = await readJson(await send(memberToken, 'GET', `/api/v2/events/${created!.id}`))
    expect(single).toEqual(created!)
  })

  it('records the client of a client-credentials token and the request id the server made up', async () => {
    const response = await service.fetch('/api/v1/products', {
      method: 'POST',
      json: { name: 'Lamp', sku: 'LAMP-1', price: 1200, currency: 'EUR' },
    })
    expect(response.status).toBe(201)
    const product = await readJson(response)
    const [created] = await eventsOf(service.token, product.id)
    expect(created!.actor).toEqual({ type: 'client', id: service.clientId })
    expect(created!.requestId).toBe(response.headers.get('x-request-id'))
    expect(created!.requestId).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('gives every event of one request its actor and id: an update, then a delete with its children', async () => {
    const { post } = await createPost(adminToken, org.admin.id)
    const patched = await send(
      memberToken,
      'PATCH',
      `/api/v2/posts/${post.id}`,
      { title: 'Edited' },
      {
        'X-Request-Id': 'edit-1',
      },
    )
    expect(patched.status).toBe(200)
    const comment = await send(memberToken, 'POST', `/api/v2/posts/${post.id}/comments`, { text: 'Hi' })
    const commentId = (await readJson(comment)).id as string
    const deleted = await send(adminToken, 'DELETE', `/api/v2/posts/${post.id}`, undefined, {
      'X-Request-Id': 'cleanup-7',
    })
    expect(deleted.status).toBe(204)
    const history = (await eventsOf(adminToken, post.id)).map((e) => [e.type, e.actor, e.requestId])
    expect(history).toEqual([
      ['post.created', { type: 'user', id: org.admin.id }, expect.any(String)],
      ['post.updated', { type: 'user', id: org.member.id }, 'edit-1'],
      ['post.deleted', { type: 'user', id: org.admin.id }, 'cleanup-7'],
    ])
    const child = (await eventsOf(adminToken, commentId)).map((e) => [e.type, e.actor, e.requestId])
    expect(child.at(-1)).toEqual(['comment.deleted', { type: 'user', id: org.admin.id }, 'cleanup-7'])
  })

  it('shows what admin commands did as the system, with no request id', async () => {
    // orgWithUsers creates its users as `api-server users create` does.
    const [created] = await eventsOf(adminToken, org.viewer.id)
    expect(created).toMatchObject({
      type: 'user.created',
      actor: { type: 'system', id: 'api-server' },
      requestId: null,
    })
  })

  it('records the actor and request id of a GraphQL mutation', async () => {
    const response = await send(
      memberToken,
      'POST',
      '/graphql',
      {
        query: 'mutation($input: CreatePostInput!) { createPost(input: $input) { id } }',
        variables: { input: { authorId: org.member.id, title: 'Over GraphQL' } },
      },
      { 'X-Request-Id': 'gql-mutation-1' },
    )
    const { data } = await readJson<{ data: { createPost: { id: string } } }>(response)
    const [created] = await eventsOf(memberToken, data.createPost.id)
    expect(created).toMatchObject({ actor: { type: 'user', id: org.member.id }, requestId: 'gql-mutation-1' })
  })
})

describe.each(['sse', 'ws'] as const)('subscription { events } over %s', (transport) => {
  it('streams each event with its actor and request id', async () => {
    const { post: before } = await createPost(memberToken, org.member.id)
    const [mark] = await eventsOf(memberToken, before.id)
    const { post } = await createPost(memberToken, org.member.id, { 'X-Request-Id': `stream-${transport}` })
    const subscriber = subscribe(
      server,
      transport,
      memberToken,
      { types: ['post.created'], after: mark!.id as string },
      'subscription($types: [String!], $after: ID) { events(types: $types, after: $after) { resourceId actor { type id } requestId } }',
    )
    const [event] = (await subscriber.take(1)) as unknown as Record<string, unknown>[]
    await subscriber.close()
    expect(event).toEqual({
      resourceId: post.id,
      actor: { type: 'user', id: org.member.id },
      requestId: `stream-${transport}`,
    })
  })
})

describe('a GraphQL mutation over WebSocket', () => {
  it('records its actor, and no request id: the operation is not an HTTP request', async () => {
    const client = createWsClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql`,
      connectionParams: { Authorization: `Bearer ${memberToken}` },
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    })
    try {
      const result = await client
        .iterate<{ createPost: { id: string } }>({
          query: 'mutation($input: CreatePostInput!) { createPost(input: $input) { id } }',
          variables: { input: { authorId: org.member.id, title: 'Over a socket' } },
        })
        .next()
      const id = result.value!.data!.createPost.id
      const [created] = await eventsOf(memberToken, id)
      expect(created).toMatchObject({ actor: { type: 'user', id: org.member.id }, requestId: null })
    } finally {
      await client.dispose()
    }
  })
})

describe('actor_id filters the event log', () => {
  let mine: string[]

  beforeAll(async () => {
    await createPost(adminToken, org.admin.id)
    await createPost(memberToken, org.member.id)
    const response = await send(memberToken, 'GET', '/api/v2/events?limit=100')
    const all = (await readJson<{ data: Entity[] }>(response)).data
    mine = all.filter((e) => (e.actor as Entity | null)?.id === org.member.id).map((e) => e.id as string)
    expect(mine.length).toBeGreaterThan(2)
    expect(mine.length).toBeLessThan(all.length)
  })

  const ids = (records: Entity[]) => records.map((e) => e.id as string)

  it('in a GET, echoed in filters', async () => {
    const response = await send(memberToken, 'GET', `/api/v2/events?actor_id=${org.member.id}&limit=100`)
    const body = await readJson<{ data: Entity[]; filters: Record<string, unknown> }>(response)
    expect(ids(body.data)).toEqual(mine)
    expect(body.filters).toEqual({ actor_id: org.member.id })
  })

  it('shows the actor as one field of a sparse fieldset, and refuses its stored parts', async () => {
    const response = await send(
      memberToken,
      'GET',
      `/api/v2/events?actor_id=${org.member.id}&fields=actor,type`,
    )
    expect(response.status).toBe(200)
    const { data } = await readJson<{ data: Entity[] }>(response)
    expect(data.length).toBeGreaterThan(0)
    for (const event of data) {
      expect(Object.keys(event)).toEqual(['id', 'type', 'actor'])
      expect(event.actor).toEqual({ type: 'user', id: org.member.id })
    }
    const parts = await send(memberToken, 'GET', '/api/v2/events?fields=actorId')
    expect(parts.status).toBe(400)
    expect(
      ((await parts.json()) as { error: { details: { field: string }[] } }).error.details[0]!.field,
    ).toBe('fields')
  })

  it.each([
    ['a form body', 'application/x-www-form-urlencoded', () => `actor_id=${org.member.id}&limit=100`],
    ['a JSON body', 'application/json', () => JSON.stringify({ actor_id: org.member.id, limit: 100 })],
    [
      'SQL',
      'application/sql',
      () => `SELECT * FROM events WHERE actor_id = '${org.member.id}' ORDER BY created_at DESC LIMIT 100`,
    ],
    ['JSONPath on actor.id', 'application/jsonpath', () => `$[?@.actor.id == '${org.member.id}']`],
  ])('in QUERY with %s', async (_, type, body) => {
    const response = await server.fetch('/api/v2/events', {
      method: 'QUERY',
      headers: { Authorization: `Bearer ${memberToken}`, 'Content-Type': type },
      body: body(),
    })
    expect(response.status).toBe(200)
    expect(new Set(ids((await readJson<{ data: Entity[] }>(response)).data))).toEqual(new Set(mine))
  })

  it('in a /search filter expression', async () => {
    const filter = encodeURIComponent(`actor_id = '${org.member.id}'`)
    const response = await send(
      memberToken,
      'GET',
      `/api/v2/search?collection=events&filter=${filter}&limit=100`,
    )
    expect(response.status).toBe(200)
    expect(ids((await readJson<{ data: Entity[] }>(response)).data)).toEqual(mine)
  })

  it('not through JSONPath on actorId, which is not a key of an event', async () => {
    const response = await server.fetch('/api/v2/events', {
      method: 'QUERY',
      headers: { Authorization: `Bearer ${memberToken}`, 'Content-Type': 'application/jsonpath' },
      body: `$[?@.actorId == '${org.member.id}']`,
    })
    expect((await readJson<{ data: Entity[] }>(response)).data).toEqual([])
  })

  it('selects actor as one column in SQL, and refuses its parts', async () => {
    const selected = await server.fetch('/api/v2/events', {
      method: 'QUERY',
      headers: { Authorization: `Bearer ${memberToken}`, 'Content-Type': 'application/sql' },
      body: `SELECT id, actor, request_id FROM events WHERE actor_id = '${org.member.id}' LIMIT 1`,
    })
    const [row] = (await readJson<{ data: Entity[] }>(selected)).data
    expect(Object.keys(row!)).toEqual(['id', 'actor', 'requestId'])
    expect(row!.actor).toEqual({ type: 'user', id: org.member.id })
    const parts = await server.fetch('/api/v2/events', {
      method: 'QUERY',
      headers: { Authorization: `Bearer ${memberToken}`, 'Content-Type': 'application/sql' },
      body: 'SELECT actor_id FROM events',
    })
    expect(parts.status).toBe(422)
    expect(JSON.stringify(await parts.json())).toContain('column actor_id cannot be selected')
  })

  it('in GraphQL as actorId, with actor { type id } and requestId on each event', async () => {
    const response = await send(memberToken, 'POST', '/graphql', {
      query: `{ events(actorId: "${org.member.id}", first: 100) { nodes { id actor { type id } requestId } } }`,
    })
    const nodes = (await readJson<{ data: { events: { nodes: Entity[] } } }>(response)).data.events.nodes
    expect(ids(nodes)).toEqual(mine)
    expect(nodes.every((n) => (n.actor as Entity).type === 'user' && n.requestId !== undefined)).toBe(true)
  })

  it('answers an unknown actor with an empty page, not an error', async () => {
    const response = await send(memberToken, 'GET', '/api/v2/events?actor_id=usr_nobody')
    expect(response.status).toBe(200)
    expect((await readJson<{ data: Entity[] }>(response)).data).toEqual([])
  })
})

describe('JSONPath on actor selects what json-p3 selects from the same events', () => {
  let all: Entity[]

  beforeAll(async () => {
    // An event from before actors were recorded: its actor and requestId are null.
    const now = new Date().toISOString()
    await server.sql.run(
      "INSERT INTO events (id, org_id, type, resource, resource_id, data, created_at, updated_at) VALUES (?, ?, 'user.created', 'users', ?, '{}', ?, ?)",
      [newId('evt'), org.orgId, org.member.id, now, now],
    )
    const response = await send(memberToken, 'GET', '/api/v2/events?limit=100')
    all = (await readJson<{ data: Entity[] }>(response)).data
    expect(all.some((e) => e.actor === null)).toBe(true)
  })

  it.each([
    "$[?@.actor.id == 'MEMBER'].id",
    "$[?@.actor.id != 'MEMBER'].id",
    "$[?@.actor.type == 'system'].id",
    "$[?!(@.actor.type == 'user')].id",
    '$[?@.actor == null].id',
    '$[?@.actor.id == null].id',
    '$[?@.requestId == null].id',
    "$[?@.actorId == 'MEMBER'].id",
    '$[*].actor.type',
  ])('%s (MEMBER: a user with events)', async (written) => {
    const path = () => written.replace('MEMBER', org.member.id)
    const response = await server.fetch('/api/v2/events', {
      method: 'QUERY',
      headers: { Authorization: `Bearer ${memberToken}`, 'Content-Type': 'application/jsonpath' },
      body: path(),
    })
    expect(response.status).toBe(200)
    const { data } = await readJson<{ data: unknown[] }>(response)
    expect(data).toEqual(localQuery(path(), all as never).values())
  })
})
