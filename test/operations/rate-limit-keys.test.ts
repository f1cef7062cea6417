import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Client, createClient } from 'graphql-ws'
import { codeFlow, discover, orgWithUsers, registerClient } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/** `"default";r=3;t=59` -> 3 (draft-ietf-httpapi-ratelimit-headers-08). */
function left(response: Response): number {
  const match = /^"default";r=(\d+);t=\d+$/.exec(response.headers.get('ratelimit') ?? '')
  if (!match) throw new Error(`not a RateLimit field: ${response.headers.get('ratelimit')}`)
  return Number(match[1])
}

const bearer = (server: TestServer, token: string, path = '/api/v2/orders') =>
  server.fetch(path, { headers: { Authorization: `Bearer ${token}` } })

/** A client-credentials token from the token endpoint, as a service would mint another one. */
async function mint(server: TestServer, clientId: string, secret: string): Promise<string> {
  const response = await server.fetch('/oauth/token', {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${clientId}:${secret}`)}`,
    },
    body: 'grant_type=client_credentials',
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

describe('rate limits per client: client-credentials tokens', () => {
  const LIMIT = 8
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimit: LIMIT })
  })
  afterAll(() => server.stop())

  it('four tokens minted from one client share one quota; another client of the organization has its own', async () => {
    const acme = await server.tenant()
    const other = await registerClient(server, { orgId: acme.orgId })
    const neighbour = await mint(server, other.id, other.secret!)
    const again = () => mint(server, acme.clientId, acme.clientSecret)
    const tokens = [acme.token, await again(), await again(), await again()]
    expect(new Set(tokens).size).toBe(4)
    const answers: Response[] = []
    for (let round = 0; round < LIMIT / tokens.length; round++)
      for (const token of tokens) answers.push(await bearer(server, token))
    expect(answers.map((r) => r.status)).toEqual(Array(LIMIT).fill(200))
    expect(answers.map(left)).toEqual([7, 6, 5, 4, 3, 2, 1, 0])
    for (const token of tokens) {
      const over = await bearer(server, token)
      expect(over.status).toBe(429)
      expect(((await over.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED')
    }
    expect((await bearer(server, neighbour)).status).toBe(200)
  })
})

describe('rate limits per client and user: user tokens', () => {
  // Each authorization-code flow also spends about 5 requests of the address's quota.
  const LIMIT = 30
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimit: LIMIT })
  })
  afterAll(() => server.stop())

  it('two tokens of one user share a quota; another user of the same client has their own', async () => {
    const acme = await orgWithUsers(server, 'Acme')
    const web = await registerClient(server, {
      orgId: acme.orgId,
      redirectUris: ['https://app.example/callback'],
      grantTypes: ['authorization_code'],
    })
    const config = await discover(server, web.id, web.secret)
    const flow = async (email: string) =>
      (await codeFlow(server, config, 'https://app.example/callback', email)).access_token
    const [first, second] = [await flow(acme.member.email), await flow(acme.member.email)]
    const other = await flow(acme.viewer.email)
    for (let i = 0; i < LIMIT / 2; i++) {
      expect((await bearer(server, first)).status).toBe(200)
      expect((await bearer(server, second)).status).toBe(200)
    }
    expect((await bearer(server, first)).status).toBe(429)
    expect((await bearer(server, second)).status).toBe(429)
    const theirs = await bearer(server, other)
    expect(theirs.status).toBe(200)
    expect(left(theirs)).toBe(LIMIT - 1)
  })
})

interface Opened {
  client: Client
  closed: Promise<{ code: number }>
}

function connect(server: TestServer, token: string): Opened {
  let onClosed: (event: { code: number }) => void = () => {}
  const closed = new Promise<{ code: number }>((resolve) => {
    onClosed = resolve
  })
  const client = createClient({
    url: `${server.url.replace(/^http/, 'ws')}/graphql`,
    connectionParams: { Authorization: `Bearer ${token}` },
    webSocketImpl: WebSocket,
    lazy: false,
    retryAttempts: 0,
    on: { closed: (event) => onClosed(event as { code: number }) },
    onNonLazyError: () => {},
  })
  return { client, closed }
}

/** The first result of an operation, or the errors of an `error` message. */
const run = (client: Client, query: string) =>
  client
    .iterate({ query })
    .next()
    .then(
      (result) => ({ value: result.value as unknown, errors: undefined }),
      (errors: { extensions?: { code?: string } }[]) => ({ value: undefined, errors }),
    )

describe('GraphQL over WebSocket: operations count like requests', () => {
  const LIMIT = 5
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimit: LIMIT })
  })
  afterAll(() => server.stop())

  it('takes each operation from the HTTP quota; over it, the operation gets RATE_LIMITED and the socket stays', async () => {
    const acme = await server.tenant()
    expect(left(await bearer(server, acme.token))).toBe(4)
    expect(left(await bearer(server, acme.token))).toBe(3)
    const { client, closed } = connect(server, acme.token)
    let isClosed = false
    void closed.then(() => {
      isClosed = true
    })
    for (let i = 0; i < 3; i++)
      expect((await run(client, '{ __typename }')).value).toEqual({ data: { __typename: 'Query' } })
    // The quota is spent: HTTP and WebSocket alike are refused.
    expect((await bearer(server, acme.token)).status).toBe(429)
    for (const query of ['{ __typename }', 'subscription { events { id } }']) {
      const refused = await run(client, query)
      expect(refused.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/^Too many requests; try again in \d+ s\.$/),
          extensions: expect.objectContaining({ code: 'RATE_LIMITED' }),
        }),
      ])
    }
    expect(isClosed).toBe(false)
    await client.dispose()
  })
})

describe('GraphQL over WebSocket: the upgrade', () => {
  const LIMIT = 3
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ rateLimit: LIMIT })
  })
  afterAll(() => server.stop())

  const open = () =>
    new Promise<string>((resolve) => {
      const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, ['graphql-transport-ws'])
      socket.onopen = () => {
        socket.close()
        resolve('open')
      }
      socket.onerror = () => resolve('refused')
    })

  it('counts against the address (it carries no token) and is refused when that quota is spent', async () => {
    expect(await open()).toBe('open')
    const spent = await server.fetch('/api/v2/orders')
    expect(spent.status).toBe(401)
    expect(left(spent)).toBe(1)
    expect(left(await server.fetch('/api/v2/orders'))).toBe(0)
    expect(await open()).toBe('refused')
    expect((await server.fetch('/api/v2/orders')).status).toBe(429)
  })
})
