import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Client, createClient } from 'graphql-ws'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { shortLivedToken } from './support.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

interface Opened {
  client: Client
  closed: Promise<{ code: number; reason: string }>
}

/** A graphql-ws client that connects at once and reports how the socket closed. */
function connect(params: Record<string, unknown> | undefined): Opened {
  let onClosed: (event: { code: number; reason: string }) => void = () => {}
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    onClosed = resolve
  })
  const client = createClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    connectionParams: params,
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    on: { closed: (event) => onClosed(event as { code: number; reason: string }) },
    onNonLazyError: () => {},
  })
  return { client, closed }
}

const run = (client: Client, query: string, variables?: Record<string, unknown>) =>
  client.iterate({ query, variables }).next()

describe('GraphQL over WebSocket: authentication in connection_init', () => {
  const refused: [string, Record<string, unknown> | undefined][] = [
    ['no connection_init payload', undefined],
    ['no Authorization', { token: acme?.token }],
    ['a token that is not valid', { Authorization: 'Bearer abc.def.ghi' }],
    ['another scheme', { Authorization: 'Basic abc' }],
  ]
  it.each(refused)('closes the socket with 4401 for %s', async (_, params) => {
    const { client, closed } = connect(params)
    const event = await closed
    await client.dispose()
    expect(event.code).toBe(4401)
    expect(event.reason).toStartWith('Unauthorized')
  })

  it('accepts the key in any case and runs queries and mutations', async () => {
    const { client } = connect({ authorization: `Bearer ${acme.token}` })
    const created = await run(
      client,
      'mutation { createUser(input: {name: "Ws", email: "ws@example.com"}) { email } }',
    )
    const listed = await run(client, '{ users(email: "ws@example.com") { totalCount } }')
    await client.dispose()
    expect(created.value).toEqual({ data: { createUser: { email: 'ws@example.com' } } })
    expect(listed.value).toEqual({ data: { users: { totalCount: 1 } } })
  })

  it('closes with 4401 when the token expires, after the subscriptions complete', async () => {
    const token = await shortLivedToken(server, acme, 2, ['read:events'])
    const { client, closed } = connect({ Authorization: `Bearer ${token}` })
    const subscription = client.iterate({ query: 'subscription { events { id } }' })
    const end = await subscription.next()
    const event = await closed
    await client.dispose()
    expect(end.done).toBe(true)
    expect(event.code).toBe(4401)
    expect(event.reason).toContain('expired')
  })
})

describe('GraphQL over WebSocket: errors', () => {
  it('reports validation errors with contract codes and nothing internal', async () => {
    const { client } = connect({ Authorization: `Bearer ${acme.token}` })
    const failure = await run(client, '{ users { nope } }').catch((errors) => errors)
    await client.dispose()
    expect(failure).toEqual([
      expect.objectContaining({
        extensions: { code: 'BAD_USER_INPUT', details: [] },
        locations: [{ line: 1, column: 11 }],
      }),
    ])
  })

  it('reports a rejected limit as an error and keeps the socket (and the process) alive', async () => {
    const { client } = connect({ Authorization: `Bearer ${acme.token}` })
    const deep = `{ orders { nodes { lineItems { nodes { order { lineItems { nodes { order { user { addresses { totalCount } } } } } } } } } } }`
    const tooManyTokens = `{ ${'__typename '.repeat(1200)} }`
    for (const query of [deep, tooManyTokens]) {
      const failure = await run(client, query).catch((errors) => errors)
      expect(failure[0].extensions.code).toBe('BAD_USER_INPUT')
    }
    const after = await run(client, '{ __typename }')
    await client.dispose()
    expect(after.value).toEqual({ data: { __typename: 'Query' } })
  })

  it('answers execution errors in next, with the path', async () => {
    const { client } = connect({ Authorization: `Bearer ${acme.token}` })
    const result = await run(client, '{ order(id: "ord_7zzzzzzzzzzzzzzzzzzzzzzzzz") { id } }')
    await client.dispose()
    expect(result.value).toEqual({
      data: { order: null },
      errors: [expect.objectContaining({ path: ['order'], extensions: { code: 'NOT_FOUND' } })],
    })
  })
})

describe('WebSocket upgrades', () => {
  it('are only for the graphql-transport-ws subprotocol', async () => {
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, ['chat'])
    const outcome = await new Promise<string>((resolve) => {
      socket.onopen = () => resolve('open')
      socket.onerror = () => resolve('refused')
    })
    expect(outcome).toBe('refused')
  })
})
