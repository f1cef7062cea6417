/**
 * The CLI speaks v2 by default, v1 with `--api-version v1`; money objects are written as httpie
 * nested items and shown in major units with their currency; a deprecated answer is said once on
 * stderr. Run as a real process (and on a pseudo-terminal for tables).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { UsageError } from '../../cli/errors.ts'
import { parseItems } from '../../cli/items.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Env, loggedInEnv, seedUser } from './fixtures.ts'
import { removeTempDirs, spawnCli, spawnCliOnTerminal, terminalAvailable } from './harness.ts'

let server: TestServer
let acme: Tenant
let env: Env
let userId: string

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  env = await loggedInEnv(server, acme)
  userId = await seedUser(acme)
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

const DEPRECATED =
  'warning: API v1 is deprecated since 2026-11-01, and goes away on 2027-11-01; its successor: /api/v2/orders'

describe('API versions', () => {
  it('creates and reads v2 money objects, written as amount[value]:=... amount[currency]=...', async () => {
    const run = await spawnCli(
      ['create', 'orders', `userId=${userId}`, 'amount[value]:=4200', 'amount[currency]=EUR', 'status=paid'],
      env,
    )
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    const order = JSON.parse(run.stdout)
    expect(order.amount).toEqual({ value: 4200, currency: 'EUR' })
    expect(order).not.toHaveProperty('currency')
    const read = await spawnCli(['get', 'orders', order.id], env)
    expect(JSON.parse(read.stdout).amount).toEqual({ value: 4200, currency: 'EUR' })
  })

  it('speaks v1 with --api-version v1, and says once on stderr that v1 is deprecated', async () => {
    for (let i = 0; i < 3; i++)
      await spawnCli(
        ['create', 'orders', `userId=${userId}`, 'amount[value]:=100', 'amount[currency]=JPY'],
        env,
      )
    const run = await spawnCli(['list', 'orders', '--api-version', 'v1', '--all', '--limit', '2'], env)
    expect(run.code).toBe(0)
    const orders = JSON.parse(run.stdout) as { amount: unknown; currency: string }[]
    expect(orders.length).toBeGreaterThan(2)
    expect(orders.every((o) => typeof o.amount === 'number' && typeof o.currency === 'string')).toBe(true)
    // Every page was deprecated; the warning is one line.
    expect(run.stderr).toBe(`${DEPRECATED}\n`)
  })

  it('warns about a deprecated answer of api request too, and never when the answer is current', async () => {
    const old = await spawnCli(['request', 'GET', '/api/v1/orders?limit=1'], env)
    expect(old.stderr).toBe(`${DEPRECATED}\n`)
    const current = await spawnCli(['request', 'GET', '/api/v2/orders?limit=1'], env)
    expect(current.stderr).toBe('')
  })

  it('refuses an unknown --api-version before any request (exit 2)', async () => {
    const run = await spawnCli(['list', 'orders', '--api-version', 'v3'], env)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--api-version must be one of v2, v1')
  })

  it.skipIf(!terminalAvailable)(
    "shows money in tables in the currency's minor units: 42.00 EUR, 500 JPY",
    async () => {
      await spawnCli(
        ['create', 'orders', `userId=${userId}`, 'amount[value]:=500', 'amount[currency]=JPY'],
        env,
      )
      await spawnCli(
        ['create', 'orders', `userId=${userId}`, 'amount[value]:=4200', 'amount[currency]=EUR'],
        env,
      )
      const run = await spawnCliOnTerminal(['list', 'orders', '--limit', '2'], { ...env, NO_COLOR: '1' })
      expect(run.code).toBe(0)
      const [header, ...rows] = run.output.trimEnd().split('\n')
      expect(header).toMatch(/^ID +USER ID +STATUS +AMOUNT +CREATED AT$/)
      expect(rows.slice(0, 2).map((row) => row.split(/ {2,}/)[3])).toEqual(['42.00 EUR', '500 JPY'])
      const one = await spawnCliOnTerminal(['get', 'orders', rows[0]!.split(' ')[0]!], {
        ...env,
        NO_COLOR: '1',
      })
      expect(one.output).toMatch(/^amount +42\.00 EUR$/m)
    },
  )
})

describe('nested items (key[sub]=value)', () => {
  const segment = fc.stringMatching(/^[a-z][a-z0-9_]{0,6}$/)
  const leaf = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))

  it('builds the object the items describe, whatever their depth', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.array(segment, { minLength: 1, maxLength: 4 }), {
          minLength: 1,
          maxLength: 6,
          // No path may be a prefix of another: that would be a value and an object at once.
          selector: (path) => path.join('/'),
        }),
        fc.array(leaf, { minLength: 6, maxLength: 6 }),
        (paths, values) => {
          fc.pre(
            paths.every((a) => paths.every((b) => a === b || a.join('/').indexOf(`${b.join('/')}/`) !== 0)),
          )
          const expected: Record<string, unknown> = {}
          const items = paths.map((path, i) => {
            const value = values[i]
            let node = expected
            for (const key of path.slice(0, -1)) {
              node[key] ??= {}
              node = node[key] as Record<string, unknown>
            }
            node[path.at(-1)!] = value
            const key = `${path[0]}${path
              .slice(1)
              .map((p) => `[${p}]`)
              .join('')}`
            return typeof value === 'string' ? `${key}=${value}` : `${key}:=${JSON.stringify(value)}`
          })
          expect(parseItems(items)).toEqual(expected)
        },
      ),
    )
  })

  it('appends with [] and sets an index with [n]', () => {
    expect(parseItems(['tags[]=a', 'tags[]=b', 'tags[0]=z', 'm[0][k]:=1'])).toEqual({
      tags: ['z', 'b'],
      m: [{ k: 1 }],
    })
  })

  it('keeps __proto__ a plain field', () => {
    const body = parseItems(['__proto__[polluted]=yes'])
    expect(JSON.stringify(body)).toBe('{"__proto__":{"polluted":"yes"}}')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('fails only with a usage error, on any text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', '[', ']', '=', ':', '0', '1', '"', ' ') })),
        (items) => {
          try {
            const body = parseItems(items)
            expect(JSON.parse(JSON.stringify(body))).toEqual(body)
          } catch (error) {
            expect(error).toBeInstanceOf(UsageError)
          }
        },
      ),
    )
  })

  it('refuses items that make one field a value and an object (exit 2, before any request)', async () => {
    const run = await spawnCli(['create', 'orders', 'amount:=5', 'amount[currency]=EUR'], env)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('"amount[currency]=EUR" does not fit the fields given before it')
  })
})
