import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore } from '../../server/store/open.ts'
import type { Store } from '../../server/store/store.ts'
import { newId } from '../../shared/ids.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { deliveries, webhookEndpoints } from '../../shared/resources/webhook-endpoints.ts'
import { isoNow } from '../../shared/time.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'

let postgres: TestPostgres | undefined
const backends: { name: string; location: () => Promise<string> }[] = [
  { name: 'SQLite', location: async () => join(mkdtempSync(join(tmpdir(), 'api-leases-')), 'api.db') },
]
if (postgresAvailable())
  backends.push({
    name: 'PostgreSQL',
    location: async () => {
      postgres ??= await startTestPostgres()
      return await postgres.database(`leases_${crypto.randomUUID().slice(0, 8)}`)
    },
  })
else
  console.warn(
    'PostgreSQL is not installed here: leases are checked on SQLite only (apt-get install postgresql)',
  )
afterAll(async () => {
  await postgres?.stop()
})

/** Two instances on one database with `count` pending deliveries to one endpoint. */
async function setUp(location: string, count: number): Promise<{ stores: Store[]; ids: string[] }> {
  const a = openStore(location, exampleSchema())
  await a.migrate()
  const b = openStore(location, exampleSchema())
  await b.migrate()
  const org = await a.orgs.create('Leases')
  const now = isoNow()
  const endpoint = await a.records.insert(webhookEndpoints, {
    id: newId(webhookEndpoints.prefix),
    orgId: org.id,
    now,
    values: { url: 'https://hooks.example/x', description: null, eventTypes: [], enabled: true },
  })
  const rows = Array.from({ length: count }, (_, i) => ({
    id: newId(deliveries.prefix),
    orgId: org.id,
    endpointId: endpoint.id as string,
    eventId: `evt_${i}`,
    eventType: 'order.created',
    payload: '{}',
  }))
  await a.transaction((tx) => tx.webhooks.addDeliveries(rows, now))
  return { stores: [a, b], ids: rows.map((r) => r.id) }
}

for (const backend of backends) {
  describe(`webhook leases on ${backend.name}`, () => {
    it('two instances claiming at once lease each due delivery to one of them', async () => {
      const { stores, ids } = await setUp(await backend.location(), 60)
      const now = Date.now()
      const claimedBy = new Map<string, string>()
      await Promise.all(
        stores.map(async (store, i) => {
          for (;;) {
            const batch = await store.webhooks.claim({
              now: isoNow(now),
              leaseUntil: isoNow(now + 60_000),
              owner: `instance-${i}`,
              limit: 5,
              skip: [],
            })
            if (batch.length === 0) return
            for (const d of batch) {
              expect(claimedBy.has(d.id)).toBe(false)
              claimedBy.set(d.id, `instance-${i}`)
            }
          }
        }),
      )
      expect([...claimedBy.keys()].sort()).toEqual([...ids].sort())
      for (const store of stores) await store.close()
    })

    it('a lease that ran out is taken over, and the first holder can no longer record its attempt', async () => {
      const { stores, ids } = await setUp(await backend.location(), 1)
      const [a, b] = stores as [Store, Store]
      const now = Date.now()
      const lease = (store: Store, owner: string, at: number) =>
        store.webhooks.claim({ now: isoNow(at), leaseUntil: isoNow(at + 1_000), owner, limit: 10, skip: [] })
      expect((await lease(a, 'a', now)).map((d) => d.id)).toEqual(ids)
      expect(await lease(b, 'b', now + 500)).toEqual([])
      expect((await lease(b, 'b', now + 1_500)).map((d) => d.id)).toEqual(ids)
      const outcome = { status: 'succeeded' as const, responseStatus: 200, error: null, nextAttemptAt: null }
      expect(await a.webhooks.finish(ids[0]!, 'a', outcome, isoNow())).toBe(false)
      expect(await b.webhooks.finish(ids[0]!, 'b', outcome, isoNow())).toBe(true)
      const row = await a.records.find(deliveries, ids[0]!)
      expect(row?.entity).toMatchObject({ status: 'succeeded', attempts: 1, lastResponseStatus: 200 })
      for (const store of stores) await store.close()
    })
  })
}
