/**
 * `api graphql DOCUMENT [--var k=v]... [--var k:=json]... [--operation NAME]`: the request the CLI
 * sends to /graphql and how it shows data and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestServer } from '../support/server.ts'
import { type Env, loggedInEnv, seedOrders, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli, tempDir } from './harness.ts'

const server = await startTestServer()
const acme = await server.tenant()
const probe = await acme.fetch('/graphql', { method: 'POST', json: { query: '{ __typename }' } })
const graphqlAvailable = probe.status === 200
if (!graphqlAvailable)
  console.warn(`/graphql is not served yet (${probe.status}): checking that its error is shown`)

let env: Env
let userId: string

beforeAll(async () => {
  env = await loggedInEnv(server, acme)
  userId = await seedUser(acme, 'Ann Lee')
  await seedOrders(acme, userId, [
    { amount: 100, status: 'paid' },
    { amount: 200, status: 'pending' },
    { amount: 300, status: 'paid' },
  ])
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

const PAID =
  'query Paid($s: [OrderStatus!], $n: Int) { orders(status: $s, first: $n, sort: "amount") { totalCount nodes { amount } } }'

describe('api graphql', () => {
  it('sends the document, --var values (k=v strings, k:=json) and --operation as one JSON POST', async () => {
    const run = await runCli(
      [
        'graphql',
        PAID,
        '--var',
        's:=["paid"]',
        '--var',
        'n:=5',
        '--var',
        'note=hello',
        '--operation',
        'Paid',
      ],
      { env },
    )
    const sent = run.requests[0]!
    expect(sent.method).toBe('POST')
    expect(sent.url.pathname).toBe('/graphql')
    expect(sent.headers.get('content-type')).toBe('application/json')
    expect(sent.headers.get('accept')).toBe('application/graphql-response+json, application/json')
    expect(JSON.parse(sent.body!)).toEqual({
      query: PAID,
      variables: { s: ['paid'], n: 5, note: 'hello' },
      operationName: 'Paid',
    })
  })

  it('reads the document from a file with @file', async () => {
    const file = join(tempDir(), 'count.graphql')
    writeFileSync(file, 'query { orders { totalCount } }')
    const run = await runCli(['graphql', `@${file}`], { env })
    expect(JSON.parse(run.requests[0]!.body!).query).toBe('query { orders { totalCount } }')
  })

  it('rejects a --var that is not k=v or k:=json before any request (exit 2)', async () => {
    const run = await runCli(['graphql', PAID, '--var', 'n:=five'], { env })
    expect(run.code).toBe(2)
    expect(run.requests).toHaveLength(0)
  })

  it.if(!graphqlAvailable)("shows the server's error when it has no /graphql yet (exit 1)", async () => {
    const run = await runCli(['graphql', '{ orders { totalCount } }'], { env })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/^error [A-Z_]+ \(\d{3}\): /)
  })
})

describe.if(graphqlAvailable)('api graphql answers', () => {
  it('prints the data on stdout as JSON and exits 0', async () => {
    const run = await runCli(['graphql', PAID, '--var', 's:=["paid"]', '--var', 'n:=5'], { env })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({
      data: { orders: { totalCount: 2, nodes: [{ amount: 100 }, { amount: 300 }] } },
    })
  })

  it('passes a k=v variable as a string', async () => {
    const run = await runCli(
      ['graphql', 'query Find($q: String) { users(q: $q) { nodes { name } } }', '--var', 'q=lee'],
      { env },
    )
    expect(JSON.parse(run.stdout).data.users.nodes).toEqual([{ name: 'Ann Lee' }])
  })

  it('runs the operation named by --operation', async () => {
    const document = 'query Orders { orders { totalCount } } query Users { users { totalCount } }'
    const run = await runCli(['graphql', document, '--operation', 'Users'], { env })
    expect(JSON.parse(run.stdout)).toEqual({ data: { users: { totalCount: 1 } } })
  })

  it('runs a mutation', async () => {
    const mutation = `mutation { createOrder(input: {userId: "${userId}", amount: 42, currency: "EUR"}) { amount status } }`
    const run = await runCli(['graphql', mutation], { env })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout).data.createOrder).toEqual({ amount: 42, status: 'pending' })
  })

  it('prints execution errors (with their code) on stderr and the partial data on stdout, exit 1', async () => {
    const run = await runCli(['graphql', 'query { order(id: "ord_00000000000000000000000000") { id } }'], {
      env,
    })
    expect(run.code).toBe(1)
    expect(JSON.parse(run.stdout).data).toEqual({ order: null })
    expect(run.stderr).toBe('error NOT_FOUND: No order with id ord_00000000000000000000000000.\n')
  })

  it('shows why the server could not validate the document, exit 2', async () => {
    const run = await runCli(['graphql', 'query { nope }'], { env })
    expect(run.code).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('Cannot query field "nope" on type "Query".')
    expect(run.stderr).toContain('the server could not parse or validate the document')
  })

  it('streams subscription events as NDJSON until interrupted, then exits 130', async () => {
    let interrupt = () => {}
    const interrupted = new Promise<void>((resolve) => {
      interrupt = resolve
    })
    const run = await runCli(['graphql', 'subscription { events(types: ["order.created"]) { type data } }'], {
      env,
      interrupted,
      fetch: async (input, init, sofar) => {
        const response = await fetch(input, init)
        // Subscribed: two orders are created, and the user presses Ctrl-C once both arrived.
        void (async () => {
          for (const amount of [7001, 7002])
            await acme.fetch('/api/v1/orders', { method: 'POST', json: { userId, amount, currency: 'EUR' } })
          while (sofar.stdout.split('\n').filter(Boolean).length < 2) await Bun.sleep(20)
          interrupt()
        })()
        return response
      },
    })
    expect(run.requests[0]!.headers.get('accept')).toBe('text/event-stream')
    expect(run.code).toBe(130)
    const events = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(events.map((e) => e.data.events.type)).toEqual(['order.created', 'order.created'])
    expect(events.map((e) => e.data.events.data.amount)).toEqual([7001, 7002])
  })

  it('prints JSON even on a terminal (a GraphQL answer is not a table)', async () => {
    const run = await runCli(['graphql', '{ orders { totalCount } }'], { env, tty: true })
    expect(JSON.parse(run.stdout).data.orders.totalCount).toBeGreaterThanOrEqual(3)
  })
})
