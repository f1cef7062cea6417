import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { currentAccess } from '../../server/auth/current-access.ts'
import { openStore } from '../../server/store/open.ts'
import type { Store } from '../../server/store/store.ts'
import { EXPIRING_KINDS } from '../../server/store/store.ts'
import { newId } from '../../shared/ids.ts'
import type { Condition } from '../../shared/query/types.ts'
import { events } from '../../shared/resources/events.ts'
import { actionOf, exampleSchema } from '../../shared/resources/index.ts'
import { users } from '../../shared/resources/users.ts'
import { isoNow } from '../../shared/time.ts'
import { example } from '../support/example.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'

const orders = example('orders')
const posts = example('posts')
const products = example('products')

/**
 * One contract, every backend: what the engine relies on from the store, run against SQLite and,
 * where a PostgreSQL server can be had (CI installs Debian's), against PostgreSQL.
 */

interface Backend {
  name: string
  open: () => Promise<{ store: Store; location: string; done: () => Promise<void> }>
}

let postgres: TestPostgres | undefined
const backends: Backend[] = [
  {
    name: 'SQLite',
    open: async () => {
      const location = join(mkdtempSync(join(tmpdir(), 'api-contract-')), 'api.db')
      const store = openStore(location, exampleSchema())
      return { store, location, done: () => store.close() }
    },
  },
]
if (postgresAvailable()) {
  backends.push({
    name: 'PostgreSQL',
    open: async () => {
      postgres ??= await startTestPostgres()
      const location = await postgres.database(`contract_${crypto.randomUUID().slice(0, 8)}`)
      const store = openStore(location, exampleSchema())
      return { store, location, done: () => store.close() }
    },
  })
} else {
  console.warn(
    'PostgreSQL is not installed here: the store contract runs on SQLite only (apt-get install postgresql)',
  )
}
afterAll(async () => {
  await postgres?.stop()
})

const product = (orgId: string, name: string, extra: Record<string, unknown> = {}) => ({
  id: newId(products.prefix),
  orgId,
  now: isoNow(),
  values: {
    name,
    sku: `SKU-${crypto.randomUUID().slice(0, 8)}`,
    description: null,
    price: 500,
    currency: 'EUR',
    active: true,
    ...extra,
  },
})

for (const backend of backends) {
  describe(`the store on ${backend.name}`, () => {
    let store: Store
    let location: string
    let done: () => Promise<void>
    let orgId: string
    beforeAll(async () => {
      ;({ store, location, done } = await backend.open())
      await store.migrate()
      orgId = (await store.orgs.create(`Contract ${backend.name}`)).id
    })
    afterAll(() => done())

    it('migrates once, then finds nothing to do, and has the CLI client', async () => {
      const version = await store.migrate()
      expect(await store.migrate()).toBe(version)
      expect((await store.clients.find('api-cli'))?.public).toBe(true)
    })

    it('inserts a record and reads it back as the API shows it: booleans, nulls, numbers', async () => {
      const entity = await store.records.insert(products, product(orgId, 'Lamp', { active: false }))
      const found = await store.records.find(products, entity.id as string)
      expect(found?.orgId).toBe(orgId)
      expect(found?.entity).toEqual(entity)
      expect(found?.entity.active).toBe(false)
      expect(found?.entity.description).toBeNull()
      expect(found?.entity.price).toBe(500)
    })

    it('pages with filters, a list of values, sorting, keyset and counts', async () => {
      const org = (await store.orgs.create(`Paging ${backend.name}`)).id
      for (const [name, price, active] of [
        ['Anvil', 300, true],
        ['Bell', 100, false],
        ['Chair', 200, true],
        ['Desk', 400, true],
      ] as const)
        await store.records.insert(products, product(org, name, { price, active }))
      const sort = [{ field: 'price', descending: false }]
      const active = [{ kind: 'compare', field: 'active', op: 'eq', value: true } as const]
      const first = await store.records.page(products, org, { where: active, sort, limit: 2 })
      expect(first.map((p) => p.name)).toEqual(['Chair', 'Anvil'])
      const keys = [...sort, { field: 'id', descending: false }]
      const after = store.records.sortValues(products, first.at(-1)!, keys)
      const next = await store.records.page(products, org, { where: active, sort, limit: 2, after })
      expect(next.map((p) => p.name)).toEqual(['Desk'])
      const named: Condition[] = [
        { kind: 'compare', field: 'name', op: 'in', value: ['Bell', 'Desk', 'Nope'] },
      ]
      expect(await store.records.count(products, org, named)).toBe(2)
      const like = [{ kind: 'compare', field: 'name', op: 'like', value: 'c%' } as const]
      expect(
        (await store.records.page(products, org, { where: like, sort, limit: 5 })).map((p) => p.name),
      ).toEqual(['Chair'])
      expect(await store.records.count(products, org, [])).toBe(4)
      expect(await store.records.count(products, orgId === org ? 'other' : orgId, named)).toBe(0)
    })

    it('finds records by full-text search, ignoring accents, the last word as a prefix', async () => {
      const org = (await store.orgs.create(`Search ${backend.name}`)).id
      await store.records.insert(products, product(org, 'Crème brûlée torch'))
      await store.records.insert(products, product(org, 'Garden hose'))
      const hits = await store.records.page(products, org, {
        where: [],
        search: 'creme bru',
        sort: [{ field: 'createdAt', descending: true }],
        limit: 10,
      })
      expect(hits.map((p) => p.name)).toEqual(['Crème brûlée torch'])
      expect(await store.records.count(products, org, [], '"; DROP TABLE products; --')).toBe(0)
    })

    it('updates, tells unique values taken, and removes', async () => {
      const entity = await store.records.insert(products, product(orgId, 'Stool'))
      const after = await store.records.update(
        products,
        entity,
        { name: 'Tall stool', active: false },
        isoNow(),
      )
      expect((await store.records.find(products, entity.id as string))?.entity).toEqual(after)
      expect(await store.records.uniqueTaken(products, orgId, 'sku', entity.sku)).toBe(true)
      expect(await store.records.uniqueTaken(products, orgId, 'sku', entity.sku, entity.id as string)).toBe(
        false,
      )
      await store.records.remove(products, entity.id as string)
      expect(await store.records.find(products, entity.id as string)).toBeNull()
    })

    it("moves an action's state field only from its states, once when two transactions race", async () => {
      const user = await store.records.insert(users, {
        id: newId(users.prefix),
        orgId,
        now: isoNow(),
        values: { name: 'Ann', email: `states-${backend.name}@example.com`, role: 'viewer' },
      })
      const order = await store.records.insert(orders, {
        id: newId(orders.prefix),
        orgId,
        now: isoNow(),
        values: { userId: user.id, status: 'paid', amount: 100, currency: 'EUR' },
      })
      const ship = actionOf(orders, 'ship')!
      // Both start from the same read of the order, as two requests would.
      const raced = await Promise.all(
        [1, 2].map(() => store.transaction((tx) => tx.records.transition(orders, order, ship, isoNow()))),
      )
      const shipped = raced.filter((entity) => entity !== null)
      expect(shipped).toHaveLength(1)
      expect(shipped[0]!.status).toBe('shipped')
      expect((await store.records.find(orders, order.id as string))?.entity).toEqual(shipped[0]!)
      const post = await store.records.insert(posts, {
        id: newId(posts.prefix),
        orgId,
        now: isoNow(),
        values: { authorId: user.id, title: 'Draft', body: '', published: false },
      })
      const published = await store.records.transition(posts, post, actionOf(posts, 'publish')!, isoNow())
      expect(published?.published).toBe(true)
      expect((await store.records.find(posts, post.id as string))?.entity).toEqual(published!)
      expect(await store.records.transition(posts, post, actionOf(posts, 'publish')!, isoNow())).toBeNull()
      expect((await store.records.find(posts, post.id as string))?.entity.published).toBe(true)
    })

    it('commits a transaction whole, or rolls it back whole', async () => {
      const kept = product(orgId, 'Kept')
      await store.transaction(async (tx) => {
        await tx.records.insert(products, kept)
      })
      const lost = product(orgId, 'Lost')
      const failed = await store
        .transaction(async (tx) => {
          await tx.records.insert(products, lost)
          throw new Error('undo')
        })
        .catch((error: Error) => error.message)
      expect(failed).toBe('undo')
      expect(await store.records.find(products, kept.id)).not.toBeNull()
      expect(await store.records.find(products, lost.id)).toBeNull()
    })

    it('keeps the event log in append order, filtered by type and collection, with actors', async () => {
      const org = (await store.orgs.create(`Events ${backend.name}`)).id
      const start = await store.events.last()
      const ids: string[] = []
      const origins = [
        { actor: { type: 'user', id: 'usr_1' }, requestId: 'req-1' },
        { actor: { type: 'system', id: 'api-server' }, requestId: null },
        { actor: null, requestId: null },
      ] as const
      for (const [i, [type, resource]] of (
        [
          ['order.created', 'orders'],
          ['user.created', 'users'],
          ['order.updated', 'orders'],
        ] as const
      ).entries()) {
        const id = newId(events.prefix)
        ids.push(id)
        await store.transaction((tx) =>
          tx.events.append({
            id,
            orgId: org,
            now: isoNow(),
            type,
            resource,
            resourceId: 'x',
            data: { n: 1 },
            ...origins[i]!,
          }),
        )
      }
      const until = await store.events.last()
      const all = await store.events.after(org, { after: start, until }, {}, 10)
      expect(all.map((e) => e.entity.id)).toEqual(ids)
      expect(all.map((e) => e.entity.data)).toEqual([{ n: 1 }, { n: 1 }, { n: 1 }])
      expect(all.map((e) => ({ actor: e.entity.actor, requestId: e.entity.requestId }))).toEqual([...origins])
      const ordersOnly = await store.events.after(
        org,
        { after: start, until },
        { resources: [orders.name] },
        10,
      )
      expect(ordersOnly.map((e) => e.entity.type)).toEqual(['order.created', 'order.updated'])
      const typed = await store.events.after(org, { after: start, until }, { types: ['user.created'] }, 10)
      expect(typed.map((e) => e.entity.resource)).toEqual([users.name])
      expect(await store.events.after(org, { after: start, until }, { resources: [] }, 10)).toEqual([])
      expect((await store.events.position(ids[1]!))?.seq).toBe(all[1]!.seq)
      expect(await store.events.position('evt_missing')).toBeNull()
    })

    it('keeps one answer per idempotency key, and OAuth state that is used once', async () => {
      const key = { orgId, clientId: 'clt_1', subject: 'usr_1', key: 'k1' }
      const now = Date.now()
      await store.idempotency.save(
        key,
        { requestHash: 'h', response: { status: 201, headers: { a: 'b' }, body: '{}' } },
        now,
      )
      expect((await store.idempotency.find(key, now))?.response.headers).toEqual({ a: 'b' })
      const { client, secret } = await store.clients.create({ name: 'svc', orgId, public: false })
      expect((await store.clients.authenticate(client.id, secret!))?.id).toBe(client.id)
      expect(await store.clients.authenticate(client.id, 'cs_wrong')).toBeNull()
      const user = await store.records.insert(users, {
        id: newId(users.prefix),
        orgId,
        now: isoNow(),
        values: { name: 'Ann', email: `ann-${backend.name}@example.com`, role: 'admin' },
      })
      const code = {
        orgId,
        clientId: client.id,
        userId: user.id as string,
        redirectUri: 'http://127.0.0.1/cb',
        codeChallenge: null,
        scope: ['read:users'],
        expiresAt: now + 60_000,
      }
      await store.codes.insert('ac_1', code, now)
      expect(await store.codes.markUsed('ac_1', now)).toBe(true)
      expect(await store.codes.markUsed('ac_1', now)).toBe(false)
      const device = {
        userCode: 'WXYZWXYZ',
        clientId: client.id,
        requestedScope: null,
        interval: 5,
        expiresAt: now + 60_000,
      }
      expect(await store.deviceCodes.insert('dc_1', device, now)).toBe(true)
      expect(await store.deviceCodes.insert('dc_2', device, now)).toBe(false)
      const grant = await store.grants.create(
        { orgId, clientId: client.id, userId: user.id as string, scope: [], expiresAt: now + 60_000 },
        now,
      )
      expect(await store.grants.isLive(grant.id)).toBe(true)
      await store.grants.insertRefreshToken('rt_1', grant, now + 60_000, now)
      expect(await store.grants.markRefreshTokenUsed('rt_1', now)).toBe(true)
      expect(await store.grants.markRefreshTokenUsed('rt_1', now)).toBe(false)
      await store.grants.revoke(grant.id, now)
      expect(await store.grants.isLive(grant.id)).toBe(false)
      await store.revocations.revoke('jti-1', orgId, now + 60_000, now)
      await store.revocations.revoke('jti-1', orgId, now + 60_000, now)
      expect(await store.revocations.isRevoked('jti-1')).toBe(true)
      expect((await store.users.byEmail(`ann-${backend.name}@example.com`, null)).map((u) => u.role)).toEqual(
        ['admin'],
      )
    })

    it('refuses a second organization with a name, keeps one stored query per body, one secret per name', async () => {
      await store.orgs.createUnique(`Unique ${backend.name}`)
      await expect(store.orgs.createUnique(`Unique ${backend.name}`)).rejects.toThrow(/exists already/)
      const query = {
        id: 'qry_a',
        orgId,
        createdBy: 'usr_1',
        target: '/api/v1/orders',
        mediaType: 'application/sql',
        body: 'SELECT *',
        requestHash: 'same',
      }
      const now = Date.now()
      const first = await store.queries.save(query, now)
      const again = await store.queries.save({ ...query, id: 'qry_b' }, now + 1)
      expect(again.id).toBe(first.id)
      expect((await store.settings.instanceSecret('k')).length).toBe(32)
      expect(await store.settings.instanceSecret('k')).toEqual(await store.settings.instanceSecret('k'))
    })

    it("lets another instance's caches see a write within a second (a revoked token)", async () => {
      const other = openStore(location, exampleSchema())
      try {
        await other.migrate()
        // A live client's token: one of a client that is not there (deleted) is refused at once.
        const { client } = await store.clients.create({ name: 'cache', orgId, public: false })
        const principal = {
          kind: 'client' as const,
          subject: client.id,
          orgId,
          clientId: client.id,
          scopes: new Set<string>(),
          expiresAt: Date.now() / 1000 + 3600,
          tokenId: 'jti-cache',
        }
        const access = currentAccess(other, other.schema)
        expect(await access(principal)).not.toBeNull()
        await store.revocations.revoke('jti-cache', orgId, Date.now() + 60_000, Date.now())
        const deadline = Date.now() + 1_000
        while ((await access(principal)) !== null && Date.now() < deadline) await Bun.sleep(50)
        expect(await access(principal)).toBeNull()
      } finally {
        await other.close()
      }
    })

    it('keeps one first signing key when instances starting together each make one', async () => {
      const fresh = await backend.open()
      const others = [openStore(fresh.location, exampleSchema()), openStore(fresh.location, exampleSchema())]
      try {
        await fresh.store.migrate()
        const stores = [fresh.store, ...others]
        const insert = (s: Store, i: number) => s.settings.insertFirstKey(`kid-${i}`, '{}', '{}')
        // SQLite's instances are processes: connections of one process would wait on each other's
        // write lock synchronously, so here they take turns; PostgreSQL's race for real.
        const kept =
          backend.name === 'SQLite'
            ? [await insert(stores[0]!, 0), await insert(stores[1]!, 1), await insert(stores[2]!, 2)]
            : await Promise.all(stores.map(insert))
        expect(kept.filter(Boolean)).toHaveLength(1)
        expect(await fresh.store.settings.liveKeys(60_000)).toHaveLength(1)
      } finally {
        for (const other of others) await other.close()
        await fresh.done()
      }
    })

    it('purges every kind of expired row in bounded statements', async () => {
      for (const kind of EXPIRING_KINDS)
        expect(await store.purgeExpired(kind, Date.now() + 1e12, 10)).toBeGreaterThanOrEqual(0)
      expect(
        await store.idempotency.find({ orgId, clientId: 'clt_1', subject: 'usr_1', key: 'k1' }, Date.now()),
      ).toBeNull()
    })
  })
}
