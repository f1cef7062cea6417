/**
 * Writes in two phases (server/resources/prepared-write.ts), checked in the engine itself: each
 * write is authorized once, its hooks' checks run before any transaction opens, and it runs as
 * exactly one transaction, with an Idempotency-Key too; a replay opens none and checks nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { systemPrincipal } from '../../server/admin/system.ts'
import type { Principal } from '../../server/auth/tokens.ts'
import { prepareAction } from '../../server/resources/actions.ts'
import type { EngineContext, HookRegistry } from '../../server/resources/context.ts'
import { CursorCodec } from '../../server/resources/cursor.ts'
import { prepareBulkDelete, prepareDelete } from '../../server/resources/deletes.ts'
import { runIdempotent } from '../../server/resources/idempotency.ts'
import { type PreparedWrite, runWrite } from '../../server/resources/prepared-write.ts'
import { prepareCreate, prepareUpdate } from '../../server/resources/writes.ts'
import { openStore } from '../../server/store/open.ts'
import type { Store, Tx } from '../../server/store/store.ts'
import type { Entity } from '../../server/store/types.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { users } from '../../shared/resources/users.ts'
import { example } from '../support/example.ts'

const orders = example('orders')
const products = example('products')

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

/** What happened, in order: `check`, `begin`, `commit`, `rollback`, `nested begin`, `authorize write:...`. */
const trace: string[] = []
let depth = 0

/** The store with its transactions traced; one inside another is traced as `nested begin`. */
function traced(tx: Tx): Tx {
  return new Proxy(tx, {
    get(target, name) {
      if (name !== 'transaction') return Reflect.get(target, name)
      return async <T>(fn: (inner: Tx) => Promise<T>): Promise<T> => {
        trace.push(depth === 0 ? 'begin' : 'nested begin')
        depth += 1
        try {
          const result = await target.transaction((inner) => fn(traced(inner)))
          if (depth === 1) trace.push('commit')
          return result
        } catch (error) {
          if (depth === 1) trace.push('rollback')
          throw error
        } finally {
          depth -= 1
        }
      }
    },
  })
}

/** A principal whose scope checks are traced, so that a test can count them. */
function tracedPrincipal(principal: Principal): Principal {
  const scopes = principal.scopes
  return {
    ...principal,
    scopes: {
      ...scopes,
      has: (scope: string) => {
        if (scope.startsWith('write:') || scope.startsWith('delete:')) trace.push(`authorize ${scope}`)
        return scopes.has(scope)
      },
    } as ReadonlySet<string>,
  }
}

/** A hook on products whose check says whether a transaction was open when it ran. */
const hooks: HookRegistry = new Map([
  ['products', { check: async () => void trace.push(depth === 0 ? 'check' : 'check inside a transaction') }],
])

let store: Store
let ctx: EngineContext
let principal: Principal

beforeAll(async () => {
  store = openStore(':memory:', exampleSchema())
  await store.migrate()
  const org = await store.orgs.create('Phases')
  ctx = {
    schema: store.schema,
    store: traced(store),
    clock: Date.now,
    cursors: new CursorCodec(crypto.getRandomValues(new Uint8Array(32))),
    hooks,
  }
  principal = tracedPrincipal(systemPrincipal(SCHEMA, org.id))
})
afterAll(() => store.close())

let serial = 0
const productBody = () => ({ name: 'Lamp', sku: `L-${++serial}`, price: 1200, currency: 'EUR' })
const answer = (entity: Entity) => ({ status: 201, headers: {}, body: JSON.stringify(entity) })

/** The trace of one write, from its prepare to its end. */
async function traceOf<T>(
  prepare: () => PreparedWrite<T>,
  run: (write: PreparedWrite<T>) => Promise<unknown> = (write) => runWrite(ctx, write),
) {
  trace.length = 0
  await run(prepare())
  return [...trace]
}

describe('a prepared write', () => {
  it('creates: authorized once, checked outside any transaction, applied in one', async () => {
    expect(await traceOf(() => prepareCreate(ctx, principal, products, productBody()))).toEqual([
      'authorize write:products',
      'check',
      'begin',
      'commit',
    ])
  })

  it('creates with an Idempotency-Key in one transaction with its key; a replay checks nothing and opens none', async () => {
    const key = { key: `k-${Date.now()}`, fingerprint: 'f' }
    const body = productBody()
    const idempotent = (w: PreparedWrite<Entity>) => runIdempotent(ctx, principal, key, w, answer)
    const prepare = () => prepareCreate(ctx, principal, products, body)
    expect(await traceOf(prepare, idempotent)).toEqual([
      'authorize write:products',
      'check',
      'begin',
      'commit',
    ])
    expect(await traceOf(prepare, idempotent)).toEqual(['authorize write:products'])
  })

  it('updates, acts and deletes in one transaction each', async () => {
    const user = await runWrite(
      ctx,
      prepareCreate(ctx, principal, users, { name: 'Ann', email: 'ann@x.example' }),
    )
    const order = await runWrite(
      ctx,
      prepareCreate(ctx, principal, orders, { userId: user.id, amount: 100, currency: 'EUR' }),
    )
    const product = await runWrite(ctx, prepareCreate(ctx, principal, products, productBody()))
    const id = (entity: Entity) => entity.id as string
    const cases: [string, () => PreparedWrite<unknown>, string[]][] = [
      [
        'PATCH',
        () => prepareUpdate(ctx, principal, products, id(product), { price: 1300 }, 'patch'),
        ['authorize write:products', 'check', 'begin', 'commit'],
      ],
      [
        'an action',
        () => prepareAction(principal, orders, orders.actions.find((a) => a.name === 'cancel')!, id(order)),
        ['authorize write:orders', 'begin', 'commit'],
      ],
      [
        'DELETE',
        () => prepareDelete(principal, products, id(product)),
        ['authorize write:products', 'begin', 'commit'],
      ],
      [
        'a bulk DELETE',
        () => prepareBulkDelete(principal, products, [], undefined),
        ['authorize delete:products', 'begin', 'commit'],
      ],
    ]
    for (const [name, prepare, expected] of cases)
      expect([name, await traceOf(prepare)]).toEqual([name, expected])
  })

  it('refuses before any check or transaction when the principal may not write', async () => {
    const reader = tracedPrincipal({ ...principal, scopes: new Set(['read:products']) })
    trace.length = 0
    expect(() => prepareCreate(ctx, reader, products, productBody())).toThrow('write:products')
    expect(trace).toEqual(['authorize write:products'])
  })

  it('checks the record as it is in the transaction: a failed apply rolls back after one begin', async () => {
    const missing = 'prd_01jd3v0m7qf8s9t2w4x6y8z0ab'
    trace.length = 0
    const write = prepareUpdate(ctx, principal, products, missing, { price: 1 }, 'patch')
    await expect(runWrite(ctx, write)).rejects.toThrow('No product')
    expect(trace).toEqual(['authorize write:products', 'check', 'begin', 'rollback'])
  })
})
