/**
 * `bun bench/store-interface.ts [--kysely PATH]`: what a sync, an async and a `T | Promise<T>` store
 * interface cost the SQLite path, in-process on the real statements (docs/architecture.md, "Store
 * interface and SQL dialects (decision)").
 *
 * "Value-or-promise" is a `T | Promise<T>` interface: the caller checks `instanceof Promise` and
 * awaits only a promise.
 *
 * - GET by id in the shape of the hot path: the token check (`currentAccess`), one SELECT by id
 *   (`findRecord`), serialize, ETag; called directly, from an async handler, through async store
 *   and engine functions awaited at every layer, through `T | Promise<T>` checked with
 *   `instanceof Promise`, and through an engine of generators driven synchronously.
 * - A create: the record and its event in one transaction, synchronous (`.immediate()`, as
 *   `server/resources/writes.ts` does), through an async transaction wrapper (with the write lock
 *   a single SQLite connection then needs), and through a `T | Promise<T>` wrapper.
 * - Whether a read that runs while an async transaction awaits sees its uncommitted row.
 * - With `--kysely PATH` (kysely's `dist/index.js`, installed outside the project, for instance
 *   `npm i kysely@0.29.9` in a scratch directory): the same GET by id with its SQL built and
 *   compiled by Kysely on each call, and one list page compiled by Kysely and by `compile.ts`.
 *
 * Each variant runs once per round, in a rotated order. The table gives each variant's fastest and
 * median round, and its paired difference: per round, against the first variant of its group in
 * that same round, then the median over rounds.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { currentAccess } from '../server/auth/current-access.ts'
import type { Principal } from '../server/auth/tokens.ts'
import { entityTag } from '../server/http/etag.ts'
import { serializeRow } from '../server/store/columns.ts'
import { orderBy, whereClause } from '../server/store/compile.ts'
import { Params } from '../server/store/dialect.ts'
import { migrateDatabase, openDatabase } from '../server/store/sqlite/db.ts'
import { SQLITE } from '../server/store/sqlite/dialect.ts'
import { insertEvent } from '../server/store/sqlite/event-log.ts'
import { createOrg } from '../server/store/sqlite/orgs.ts'
import { findRecord, insertRecord, type Row } from '../server/store/sqlite/records.ts'
import { sqliteStore } from '../server/store/sqlite/store.ts'
import type { Entity, NewEvent, NewRecord, StoredRecord } from '../server/store/types.ts'
import { newId } from '../shared/ids.ts'
import { events } from '../shared/resources/events.ts'
import { ORDER_STATUSES, orders } from '../shared/resources/orders.ts'
import { users } from '../shared/resources/users.ts'
import { isoNow } from '../shared/time.ts'

const ORDERS = 5000
// Many short rounds, each variant once per round in a rotated order: machine noise and the growth
// of the tables spread over all variants alike.
const ROUNDS = 25
const READS = 4000
const WRITES = 400
const FILE_WRITES = 60
const LAYER_CALLS = 200_000
const COMPILES = 4000

type MaybePromise<T> = T | Promise<T>

const dir = mkdtempSync(join(tmpdir(), 'api-bench-store-'))

/** A migrated database with one organization, its owner and `count` orders, each with its event. */
function fixture(path: string, count: number) {
  // `fast` as `serve --durability fast`: commits are not synced, checkpoints are.
  const db = openDatabase(path, 'fast')
  migrateDatabase(db)
  const orgId = createOrg(db, 'Bench').id
  const values = { name: 'Owner', email: 'owner@bench.example', role: 'admin' }
  const userId = insertRecord(db, users, { id: newId(users.prefix), orgId, values, now: isoNow() }).id
  const newOrder = (i: number): NewRecord => ({
    id: newId(orders.prefix),
    orgId,
    values: { userId, status: ORDER_STATUSES[i % ORDER_STATUSES.length], amount: 100 + i, currency: 'EUR' },
    now: isoNow(),
  })
  const createdEvent = (entity: Entity): NewEvent => ({
    id: newId(events.prefix),
    orgId,
    now: entity.createdAt as string,
    type: 'order.created',
    resource: orders.name,
    resourceId: entity.id,
    data: entity,
  })
  const ids: string[] = []
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const entity = insertRecord(db, orders, newOrder(i))
      insertEvent(db, createdEvent(entity))
      ids.push(entity.id as string)
    }
  }).immediate()
  return { db, orgId, ids, newOrder, createdEvent }
}

// Reads on a WAL file as the server has it; writes also on an in-memory copy of the schema, so
// that the interface's own cost is not lost in the file's I/O.
const file = fixture(join(dir, 'store.db'), ORDERS)
const memory = fixture(':memory:', 0)
const { db, ids } = file
const org = { id: file.orgId }

const principal: Principal = {
  kind: 'client',
  subject: 'cli_bench',
  orgId: org.id,
  clientId: 'cli_bench',
  scopes: new Set([orders.scopes.read, orders.scopes.write]),
  expiresAt: Math.floor(Date.now() / 1000) + 3600,
  tokenId: 'jti-bench',
}
const cachedAccess = currentAccess(sqliteStore(db))
/** The token check as a GET by id meets it: answered from its cache, synchronously. */
const access = (p: Principal): Principal | null => {
  const answer = cachedAccess(p)
  if (answer instanceof Promise) throw new Error('the token check was not cached')
  return answer
}

// Warm the token cache: every measured call then finds it.
await cachedAccess(principal)

/** What every variant does with what the store answered: authorize, serialize, tag. */
function answer(current: Principal | null, record: StoredRecord | null, id: string): string {
  if (current === null || !current.scopes.has(orders.scopes.read)) throw new Error('token refused')
  if (record === null || record.orgId !== current.orgId) throw new Error(`no order ${id}`)
  return entityTag(JSON.stringify(record.entity))
}

// Sync: today's shape.
const getSync = (id: string) => answer(access(principal), findRecord(db, orders, id), id)
const handleSync = async (id: string) => getSync(id)

// Async all the way: store, engine (loadRecord) and handler each an async function.
const asyncStore = {
  access: async (p: Principal) => access(p),
  find: async (id: string) => findRecord(db, orders, id),
}
const loadAsync = async (id: string) => await asyncStore.find(id)
const getAsync = async (id: string) => answer(await asyncStore.access(principal), await loadAsync(id), id)

// `T | Promise<T>`: the SQLite store answers plain values; each caller awaits only a promise.
const maybeStore: {
  access(p: Principal): MaybePromise<Principal | null>
  find(id: string): MaybePromise<StoredRecord | null>
} = { access, find: (id) => findRecord(db, orders, id) }
function getMaybe(id: string): MaybePromise<string> {
  const current = maybeStore.access(principal)
  if (current instanceof Promise) return current.then(async (p) => answer(p, await maybeStore.find(id), id))
  const record = maybeStore.find(id)
  if (record instanceof Promise) return record.then((r) => answer(current, r, id))
  return answer(current, record, id)
}

// Generators: the engine is written once with `yield*` where it would `await`; a runner drives it,
// synchronously for as long as the store answers values, asynchronously from its first promise.
type Steps<T> = Generator<unknown, T, unknown>
function* settled<T>(value: MaybePromise<T>): Steps<T> {
  // The runner sends back what the promise resolved to, which is a T.
  return value instanceof Promise ? ((yield value) as T) : value
}
function runSteps<T>(steps: Steps<T>): MaybePromise<T> {
  let next = steps.next()
  while (!next.done) {
    if (next.value instanceof Promise) return finishSteps(steps, next.value)
    next = steps.next(next.value)
  }
  return next.value
}
async function finishSteps<T>(steps: Steps<T>, pending: Promise<unknown>): Promise<T> {
  let next: IteratorResult<unknown, T>
  try {
    next = steps.next(await pending)
  } catch (error) {
    next = steps.throw(error)
  }
  while (!next.done) next = steps.next(await next.value)
  return next.value
}
const stepStore = {
  access: (p: Principal) => settled(maybeStore.access(p)),
  find: (id: string) => settled(maybeStore.find(id)),
}
function* loadSteps(id: string): Steps<StoredRecord | null> {
  return yield* stepStore.find(id)
}
function* getSteps(id: string): Steps<string> {
  const current = yield* stepStore.access(principal)
  return answer(current, yield* loadSteps(id), id)
}

/** The three ways to run a create (the order and its event in one transaction) on one database. */
function writers({ db, newOrder, createdEvent }: ReturnType<typeof fixture>) {
  const begin = db.prepare('BEGIN IMMEDIATE')
  const commit = db.prepare('COMMIT')
  const rollback = db.prepare('ROLLBACK')
  const insertOrder = (record: NewRecord) => insertRecord(db, orders, record)

  const createSync = (i: number) =>
    db.transaction(() => insertEvent(db, createdEvent(insertOrder(newOrder(i))))).immediate()

  // One SQLite connection serves every request: an async transaction must hold a lock until it
  // ends, or another request's BEGIN fails and its statements run inside this transaction.
  let tail: Promise<void> = Promise.resolve()
  async function transactionAsync<T>(work: () => Promise<T>): Promise<T> {
    const previous = tail
    const { promise, resolve } = Promise.withResolvers<void>()
    tail = promise
    await previous
    begin.run()
    try {
      const result = await work()
      commit.run()
      return result
    } catch (error) {
      rollback.run()
      throw error
    } finally {
      resolve()
    }
  }
  const store = {
    insert: async (record: NewRecord) => insertOrder(record),
    event: async (event: NewEvent) => insertEvent(db, event),
  }
  const createAsync = (i: number) =>
    transactionAsync(async () => store.event(createdEvent(await store.insert(newOrder(i)))))

  // A SQLite store never returns a promise, so this transaction never yields and needs no lock.
  function transactionMaybe<T>(work: () => MaybePromise<T>): MaybePromise<T> {
    begin.run()
    let result: MaybePromise<T>
    try {
      result = work()
    } catch (error) {
      rollback.run()
      throw error
    }
    if (!(result instanceof Promise)) {
      commit.run()
      return result
    }
    return result.then(
      (value) => {
        commit.run()
        return value
      },
      (error) => {
        rollback.run()
        throw error
      },
    )
  }
  const createMaybe = (i: number) =>
    transactionMaybe(() => insertEvent(db, createdEvent(insertOrder(newOrder(i)))))

  /** True when a read made while an async transaction awaits sees a row that is then rolled back. */
  async function uncommittedRowSeen(): Promise<boolean> {
    const record = newOrder(0)
    const inserted = Promise.withResolvers<void>()
    const looked = Promise.withResolvers<void>()
    const writer = transactionAsync(async () => {
      await store.insert(record)
      inserted.resolve()
      await looked.promise
      throw new Error('validation failed after the insert')
    }).catch(() => undefined)
    await inserted.promise
    const seenDuring = findRecord(db, orders, record.id) !== null
    looked.resolve()
    await writer
    return seenDuring && findRecord(db, orders, record.id) === null
  }

  return { createSync, createAsync, createMaybe, uncommittedRowSeen }
}

const onFile = writers(file)
const inMemory = writers(memory)

interface Variant {
  name: string
  group: 'layer' | 'read' | 'write' | 'write on file' | 'compile'
  ops: number
  run: (ops: number) => MaybePromise<void>
}

const idAt = (i: number) => ids[i % ids.length]!
// Written after every operation, so that no answer is left unused for the compiler to drop.
const kept: unknown[] = [undefined]

/** Runs `op` for i = 0..n-1, awaiting only what is a promise, and keeps the last answer. */
function variant(
  name: string,
  group: Variant['group'],
  ops: number,
  op: (i: number) => MaybePromise<unknown>,
): Variant {
  return {
    name,
    group,
    ops,
    run: async (n) => {
      for (let i = 0; i < n; i++) {
        const answer = op(i)
        kept[0] = answer instanceof Promise ? await answer : answer
      }
    },
  }
}

// What one layer costs on its own: a call that returns a value, awaited or checked.
const plain = (i: number) => i & 1
const plainAsync = async (i: number) => i & 1

const variants: Variant[] = [
  variant('one call returning a value, checked with instanceof', 'layer', LAYER_CALLS, plain),
  variant('one async call, awaited', 'layer', LAYER_CALLS, plainAsync),
  variant('GET by id, sync (today)', 'read', READS, (i) => getSync(idAt(i))),
  variant('GET by id, sync engine in an async handler', 'read', READS, (i) => handleSync(idAt(i))),
  variant('GET by id, async store and engine', 'read', READS, (i) => getAsync(idAt(i))),
  variant('GET by id, value-or-promise store and engine', 'read', READS, (i) => getMaybe(idAt(i))),
  variant('GET by id, generator engine (yield*)', 'read', READS, (i) => runSteps(getSteps(idAt(i)))),
]
for (const [where, set, ops] of [
  ['in memory', inMemory, WRITES],
  ['WAL file', onFile, FILE_WRITES],
] as const) {
  const group = where === 'in memory' ? 'write' : 'write on file'
  variants.push(
    variant(`create (${where}), sync transaction (today)`, group, ops, set.createSync),
    variant(`create (${where}), async transaction + write lock`, group, ops, set.createAsync),
    variant(`create (${where}), value-or-promise transaction`, group, ops, set.createMaybe),
  )
}
variants.push(
  variant('list page SQL, compile.ts', 'compile', COMPILES, () => {
    const params = new Params(SQLITE)
    const paid = [{ kind: 'compare', field: 'status', op: 'eq', value: 'paid' } as const]
    const where = whereClause(orders, org.id, paid, undefined, params)
    const order = orderBy(orders, [{ field: 'createdAt', descending: true }])
    return `SELECT * FROM orders WHERE ${where} ORDER BY ${order.text} LIMIT ${params.add(21)}`
  }),
)

/** The part of Kysely's API used here; the module is loaded from a path outside the project. */
interface Compiled {
  sql: string
  parameters: readonly unknown[]
}
interface SelectChain {
  selectAll(): SelectChain
  where(column: string, op: string, value: unknown): SelectChain
  orderBy(column: string, direction: 'asc' | 'desc'): SelectChain
  limit(n: number): SelectChain
  compile(): Compiled
}
interface KyselyModule {
  Kysely: new (config: { dialect: object }) => { selectFrom(table: string): SelectChain }
  DummyDriver: new () => object
  SqliteAdapter: new () => object
  SqliteIntrospector: new (db: unknown) => object
  SqliteQueryCompiler: new () => object
}

const kyselyAt = process.argv.indexOf('--kysely')
if (kyselyAt !== -1) {
  const path = process.argv[kyselyAt + 1]
  if (!path) throw new Error('usage: bun bench/store-interface.ts [--kysely PATH/TO/kysely/dist/index.js]')
  // A dynamic import is untyped; only the constructors and builder methods above are used.
  const k = (await import(path)) as KyselyModule
  const kdb = new k.Kysely({
    dialect: {
      createAdapter: () => new k.SqliteAdapter(),
      createDriver: () => new k.DummyDriver(),
      createIntrospector: (kysely: unknown) => new k.SqliteIntrospector(kysely),
      createQueryCompiler: () => new k.SqliteQueryCompiler(),
    },
  })
  const findWithKysely = (id: string): StoredRecord | null => {
    const query = kdb.selectFrom('orders').selectAll().where('id', '=', id).compile()
    const row = db.query(query.sql).get(...(query.parameters as string[])) as Row | null
    return row ? { orgId: row.org_id as string, entity: serializeRow(orders, row) } : null
  }
  variants.splice(
    7,
    0,
    variant('GET by id, sync, SQL compiled by Kysely per call', 'read', READS, (i) =>
      answer(access(principal), findWithKysely(idAt(i)), idAt(i)),
    ),
  )
  variants.push(
    variant('list page SQL, Kysely build + compile', 'compile', COMPILES, () =>
      kdb
        .selectFrom('orders')
        .selectAll()
        .where('org_id', '=', org.id)
        .where('status', '=', 'paid')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(21)
        .compile(),
    ),
  )
}

async function timeOnce(variant: Variant): Promise<number> {
  Bun.gc(true)
  const started = Bun.nanoseconds()
  await variant.run(variant.ops)
  return (Bun.nanoseconds() - started) / variant.ops
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function main(): Promise<void> {
  const seen = await onFile.uncommittedRowSeen()
  for (const variant of variants) await variant.run(Math.ceil(variant.ops / 4)) // warm-up
  const samples = new Map<Variant, number[]>(variants.map((v) => [v, []]))
  for (let round = 0; round < ROUNDS; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!)
    for (const variant of order) samples.get(variant)!.push(await timeOnce(variant))
  }
  console.log(`Bun ${Bun.version}, ${ORDERS} orders, ${ROUNDS} rounds, ns per operation.`)
  console.log('Fastest: the round with the least interference. Paired: per round, minus the first of')
  console.log('its group in the same round, then the median over rounds (drift and noise cancel).')
  console.log('\n| variant | fastest | median | paired difference |\n| --- | --- | --- | --- |')
  const signed = (n: number, digits = 0) => `${n >= 0 ? '+' : ''}${n.toFixed(digits)}`
  for (const group of ['layer', 'read', 'write', 'write on file', 'compile'] as const) {
    const mine = variants.filter((v) => v.group === group)
    const base = samples.get(mine[0]!)!
    for (const variant of mine) {
      const own = samples.get(variant)!
      const deltas = own.map((ns, round) => ns - base[round]!)
      const ratios = own.map((ns, round) => (ns / base[round]! - 1) * 100)
      const percent = median(base) >= 100 ? ` (${signed(median(ratios), 1)}%)` : ''
      const paired = variant === mine[0] ? '-' : `${signed(median(deltas))} ns${percent}`
      const fastest = Math.round(Math.min(...own))
      console.log(`| ${variant.name} | ${fastest} | ${Math.round(median(own))} | ${paired} |`)
    }
  }
  console.log(
    `\nA read made while an async transaction awaits sees its uncommitted, later rolled-back row: ${seen ? 'yes' : 'no'}`,
  )
}

try {
  await main()
} finally {
  file.db.close()
  memory.db.close()
  rmSync(dir, { recursive: true, force: true })
}
