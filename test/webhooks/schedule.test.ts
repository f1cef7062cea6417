/**
 * The retry schedule and the 5-day disable, hours and days long, on an injected clock: the real
 * delivery worker on a real database POSTs to a real receiver, and only the time it reads is moved.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { seal } from '../../server/crypto/seal.ts'
import { createLogger } from '../../server/ops/logger.ts'
import { openStore } from '../../server/store/open.ts'
import type { Store } from '../../server/store/store.ts'
import { secretKey } from '../../server/webhooks/hooks.ts'
import { startWebhookWorker } from '../../server/webhooks/worker.ts'
import { newId } from '../../shared/ids.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { deliveries, webhookEndpoints } from '../../shared/resources/webhook-endpoints.ts'
import { isoNow } from '../../shared/time.ts'
import { newSecret } from '../../shared/webhook-signature.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'
import { type Receiver, startReceiver } from './receiver.ts'

const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
/** The contract's waits after the 1st to 7th failed attempt (CONTRACT.md, "Webhooks"). */
const SCHEDULE = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]

let postgres: TestPostgres | undefined
const backends: { name: string; location: () => Promise<string> }[] = [
  { name: 'SQLite', location: async () => join(mkdtempSync(join(tmpdir(), 'api-schedule-')), 'api.db') },
]
if (postgresAvailable())
  backends.push({
    name: 'PostgreSQL',
    location: async () => {
      postgres ??= await startTestPostgres()
      return await postgres.database(`schedule_${crypto.randomUUID().slice(0, 8)}`)
    },
  })
const receivers: Receiver[] = []
afterAll(async () => {
  for (const r of receivers) r.stop()
  await postgres?.stop()
})

/** A store with one organization and one enabled endpoint (with a secret) pointing at `url`. */
async function setUp(location: string, url: string, start: number) {
  const store = openStore(location, exampleSchema())
  await store.migrate()
  const org = await store.orgs.create('Schedule')
  const endpoint = await store.records.insert(webhookEndpoints, {
    id: newId(webhookEndpoints.prefix),
    orgId: org.id,
    now: isoNow(start),
    values: { url, description: null, eventTypes: [], enabled: true },
  })
  const endpointId = endpoint.id as string
  await store.webhooks.addSecret(endpointId, seal(await secretKey(store), newSecret()), isoNow(start))
  /** A pending delivery of a new event, due at `at`. */
  const deliver = async (at: number) => {
    const id = newId(deliveries.prefix)
    const eventId = newId('evt')
    const payload = JSON.stringify({ id: eventId, type: 'order.created', createdAt: isoNow(at), data: {} })
    await store.transaction((tx) =>
      tx.webhooks.addDeliveries(
        [{ id, orgId: org.id, endpointId, eventId, eventType: 'order.created', payload }],
        isoNow(at),
      ),
    )
    return id
  }
  const delivery = async (id: string) => (await store.records.find(deliveries, id))!.entity
  const endpointNow = async () => (await store.records.find(webhookEndpoints, endpointId))!.entity
  return { store, orgId: org.id, endpointId, deliver, delivery, endpointNow }
}

/** Waits (real time) until `check` holds. */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

const worker = (store: Store, clock: () => number) =>
  startWebhookWorker(store, createLogger('silent'), clock, {
    allowHttp: true,
    pollMs: 10,
    attemptTimeoutMs: 2_000,
  })

for (const backend of backends) {
  describe(`the retry schedule on an injected clock, on ${backend.name}`, () => {
    it('a receiver answering 410 is tried at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then failed', async () => {
      const receiver = startReceiver(() => new Response('gone', { status: 410 }))
      receivers.push(receiver)
      let now = Date.parse('2026-03-01T00:00:00.000Z')
      const { store, deliver, delivery, endpointNow } = await setUp(
        await backend.location(),
        receiver.url,
        now,
      )
      const id = await deliver(now)
      const running = worker(store, () => now)
      try {
        for (const [i, wait] of SCHEDULE.entries()) {
          await until(async () => (await delivery(id)).attempts === i + 1, `attempt ${i + 1}`)
          expect(await delivery(id)).toMatchObject({
            status: 'pending',
            lastResponseStatus: 410,
            lastError: 'answered 410',
            nextAttemptAt: isoNow(now + wait),
          })
          // A moment before it is due, nothing is sent.
          now += wait - 1
          await Bun.sleep(60)
          expect(receiver.received).toHaveLength(i + 1)
          now += 1
        }
        await until(async () => (await delivery(id)).attempts === 8, 'the 8th attempt')
        expect(await delivery(id)).toMatchObject({ status: 'failed', attempts: 8, nextAttemptAt: null })
        now += 30 * DAY
        await Bun.sleep(60)
        expect(receiver.received).toHaveLength(8)
        expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1)
        // Failing for about 27.6 hours is not yet the 5 days that disable an endpoint.
        expect((await endpointNow()).enabled).toBe(true)
      } finally {
        await running.stop()
        await store.close()
      }
    }, 30_000)

    it('a receiver failing its first 3 calls gets the event on the 4th attempt, 5 s, 5 min and 30 min apart', async () => {
      const FAILURES = 3
      const receiver = startReceiver((_request, index) =>
        index < FAILURES ? new Response('busy', { status: 503 }) : new Response(null, { status: 204 }),
      )
      receivers.push(receiver)
      let now = Date.parse('2026-03-01T00:00:00.000Z')
      const { store, deliver, delivery } = await setUp(await backend.location(), receiver.url, now)
      const id = await deliver(now)
      const running = worker(store, () => now)
      try {
        for (const [i, wait] of SCHEDULE.slice(0, FAILURES).entries()) {
          await until(async () => (await delivery(id)).attempts === i + 1, `attempt ${i + 1}`)
          expect(await delivery(id)).toMatchObject({
            status: 'pending',
            lastResponseStatus: 503,
            nextAttemptAt: isoNow(now + wait),
          })
          now += wait
        }
        await until(async () => (await delivery(id)).status === 'succeeded', 'the delivery succeeded')
        expect(await delivery(id)).toMatchObject({
          status: 'succeeded',
          attempts: FAILURES + 1,
          lastResponseStatus: 204,
          nextAttemptAt: null,
        })
        // Nothing more is sent once it succeeded, and every attempt carried the same webhook-id.
        now += 30 * DAY
        await Bun.sleep(60)
        expect(receiver.received).toHaveLength(FAILURES + 1)
        expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1)
      } finally {
        await running.stop()
        await store.close()
      }
    }, 30_000)

    it('an endpoint failing every attempt for 5 days is disabled with an event; turned on again, it has 5 days again', async () => {
      const receiver = startReceiver(() => new Response(null, { status: 500 }))
      receivers.push(receiver)
      const start = Date.parse('2026-03-01T00:00:00.000Z')
      let now = start
      const { store, orgId, endpointId, deliver, delivery, endpointNow } = await setUp(
        await backend.location(),
        receiver.url,
        now,
      )
      const running = worker(store, () => now)
      try {
        const first = await deliver(now)
        await until(async () => (await delivery(first)).attempts === 1, 'the first attempt')
        // Failing for 3 s less than 5 days: still enabled.
        now = start + 5 * DAY - 3 * SECOND
        const second = await deliver(now)
        // The first delivery's retry (due since 5 s after it) goes too; both recorded before time moves on.
        await until(
          async () => (await delivery(first)).attempts === 2 && (await delivery(second)).attempts === 1,
          "the first delivery's retry and the second delivery's attempt",
        )
        expect((await endpointNow()).enabled).toBe(true)
        // Its retry 5 s later is past 5 days of failures: the endpoint is disabled, and says so.
        now += 5 * SECOND
        await until(async () => (await endpointNow()).enabled === false, 'the endpoint disabled')
        const disabled = await store.events.after(
          orgId,
          { after: 0, until: await store.events.last() },
          { types: ['webhook_endpoint.disabled'] },
          10,
        )
        expect(disabled.map((e) => [e.entity.resourceId, e.entity.type])).toEqual([
          [endpointId, 'webhook_endpoint.disabled'],
        ])
        // Disabled: nothing more is sent, however long it waits.
        const sent = receiver.received.length
        now += DAY
        await Bun.sleep(100)
        expect(receiver.received).toHaveLength(sent)

        // Turned on again, its next failure starts a new 5 days instead of disabling it at once.
        await store.records.update(webhookEndpoints, await endpointNow(), { enabled: true }, isoNow(now))
        const both = (attempts: number) => async () =>
          (await delivery(first)).attempts === attempts && (await delivery(second)).attempts === attempts
        await until(both(3), 'the third attempts')
        expect((await endpointNow()).enabled).toBe(true)
        now += 5 * DAY - MINUTE
        await until(both(4), 'the fourth attempts')
        expect((await endpointNow()).enabled).toBe(true)
        now += 2 * MINUTE + 5 * HOUR
        await until(async () => (await endpointNow()).enabled === false, 'the endpoint disabled again')
      } finally {
        await running.stop()
        await store.close()
      }
    }, 30_000)
  })
}
