/**
 * `api query COLLECTION --sql|--jsonpath|--form|--json`: what the CLI sends, and how it shows the
 * server's answer. Where the server does not take QUERY yet, its 405 is what must be shown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestServer } from '../support/server.ts'
import { type Env, loggedInEnv, type Order, seedOrders, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli, tempDir } from './harness.ts'

const server = await startTestServer()
const acme = await server.tenant()
const probe = await acme.fetch('/api/v1/orders', {
  method: 'QUERY',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: 'limit=1',
})
const queryAvailable = probe.status === 200
if (!queryAvailable)
  console.warn(`QUERY is not served yet (${probe.status}): checking that its error is shown`)

let env: Env
let paid: Order[]

beforeAll(async () => {
  env = await loggedInEnv(server, acme)
  const orders = await seedOrders(acme, await seedUser(acme), [
    { amount: 1500, status: 'paid' },
    { amount: 300, status: 'pending' },
    { amount: 900, status: 'paid' },
  ])
  paid = orders.filter((o) => o.status === 'paid')
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

const kinds: { flag: string; values: string[]; type: string; body: string }[] = [
  {
    flag: '--sql',
    values: ["SELECT * FROM orders WHERE status = 'paid' ORDER BY amount DESC"],
    type: 'application/sql',
    body: "SELECT * FROM orders WHERE status = 'paid' ORDER BY amount DESC",
  },
  {
    flag: '--jsonpath',
    values: ["$[?@.status == 'paid']"],
    type: 'application/jsonpath',
    body: "$[?@.status == 'paid']",
  },
  {
    flag: '--form',
    values: ['status=paid', 'sort=-amount'],
    type: 'application/x-www-form-urlencoded',
    body: 'status=paid&sort=-amount',
  },
  {
    flag: '--json',
    values: ['{"status": "paid", "sort": "-amount"}'],
    type: 'application/json',
    body: '{"status": "paid", "sort": "-amount"}',
  },
]

describe('api query', () => {
  for (const { flag, values, type, body } of kinds) {
    const args = values.flatMap((value) => [flag, value])
    it(`sends ${flag} as a QUERY with Content-Type ${type}`, async () => {
      const run = await runCli(['query', 'orders', ...args], { env })
      expect(run.requests).toHaveLength(1)
      const sent = run.requests[0]!
      expect(sent.method).toBe('QUERY')
      expect(sent.url.pathname).toBe('/api/v2/orders')
      expect(sent.headers.get('content-type')).toBe(type)
      expect(sent.body).toBe(body)
    })

    if (queryAvailable) {
      it(`prints the records ${flag} selects as a JSON array when piped`, async () => {
        const run = await runCli(['query', 'orders', ...args], { env })
        expect(run.stderr).toBe('')
        expect(run.code).toBe(0)
        const records = JSON.parse(run.stdout) as Order[]
        expect(records.map((o) => o.id).sort()).toEqual(paid.map((o) => o.id).sort())
      })
    } else {
      it(`shows the server's 405 for ${flag} on stderr and exits 1`, async () => {
        const run = await runCli(['query', 'orders', ...args], { env })
        expect(run.code).toBe(1)
        expect(run.stdout).toBe('')
        expect(run.stderr).toStartWith('error METHOD_NOT_ALLOWED (405): ')
      })
    }
  }

  it.if(queryAvailable)('prints a table of the selected records on a terminal', async () => {
    const run = await runCli(['query', 'orders', '--form', 'status=paid', '--form', 'sort=-amount'], {
      env: { ...env, NO_COLOR: '1' },
      tty: true,
    })
    const rows = run.stdout.trimEnd().split('\n')
    expect(rows[0]).toMatch(/^ID +USER ID +STATUS +AMOUNT/)
    expect(rows.slice(1).map((row) => row.split(/ {2,}/)[3])).toEqual(['15.00 EUR', '9.00 EUR'])
  })

  it('reads the body from a file with @file', async () => {
    const file = join(tempDir(), 'paid.sql')
    writeFileSync(file, "SELECT id FROM orders WHERE status = 'paid'")
    const run = await runCli(['query', 'orders', '--sql', `@${file}`], { env })
    expect(run.requests[0]!.body).toBe("SELECT id FROM orders WHERE status = 'paid'")
    expect(run.code).toBe(queryAvailable ? 0 : 1)
  })

  it.each([
    ['a file ending in a newline', 'file'],
    ['standard input from echo', 'stdin'],
  ])('sends a --jsonpath from %s without the blank around it (RFC 9535 allows none)', async (_, from) => {
    const text = "\n $[?@.status == 'paid'].id\r\n"
    const file = join(tempDir(), 'paid.jsonpath')
    writeFileSync(file, text)
    const run = await runCli(
      ['query', 'orders', '--jsonpath', from === 'file' ? `@${file}` : '@-'],
      from === 'file' ? { env } : { env, stdin: text },
    )
    expect(run.requests[0]!.body).toBe("$[?@.status == 'paid'].id")
    expect(run.code).toBe(queryAvailable ? 0 : 1)
    if (queryAvailable) expect(JSON.parse(run.stdout).sort()).toEqual(paid.map((o) => o.id).sort())
  })

  it('shows the 405 for a QUERY on a single record (exit 1)', async () => {
    const run = await runCli(['query', `orders/${paid[0]!.id}`, '--form', 'status=paid'], { env })
    expect(run.requests[0]!.url.pathname).toBe(`/api/v2/orders/${paid[0]!.id}`)
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('METHOD_NOT_ALLOWED (405)')
  })

  it(`shows the server's ${queryAvailable ? '415' : '405'} for a body type it does not take, with -i the Accept-Query`, async () => {
    const run = await runCli(
      ['request', 'QUERY', '/api/v1/orders', '-H', 'Content-Type: text/csv', '--input', '-', '-i'],
      { env, stdin: 'status\npaid\n' },
    )
    expect(run.code).toBe(1)
    if (queryAvailable) {
      expect(run.stdout).toStartWith('HTTP 415 ')
      expect(run.stdout).toMatch(/^accept-query: .*application\/sql/m)
      expect(run.stdout).toContain('"UNSUPPORTED_MEDIA_TYPE"')
    } else {
      expect(run.stdout).toStartWith('HTTP 405 ')
      expect(run.stdout).toContain('"METHOD_NOT_ALLOWED"')
    }
  })

  const usage: { args: string[]; message: string }[] = [
    { args: ['query', 'orders'], message: 'give exactly one of --sql, --jsonpath, --form or --json' },
    {
      args: ['query', 'orders', '--sql', 'SELECT * FROM orders', '--json', '{}'],
      message: 'give exactly one of --sql, --jsonpath, --form or --json',
    },
    { args: ['query', 'orders', '--form', 'paid'], message: '--form paid is not key=value' },
    { args: ['query', 'ordrs', '--form', 'a=b'], message: 'did you mean orders?' },
  ]
  for (const { args, message } of usage) {
    it(`exits 2 before any request: api ${args.join(' ')}`, async () => {
      const run = await runCli(args, { env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(message)
      expect(run.requests).toHaveLength(0)
    })
  }
})
