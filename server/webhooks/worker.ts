import { newId } from '../../shared/ids.ts'
import { events } from '../../shared/resources/events.ts'
import { deliveries, webhookEndpoints } from '../../shared/resources/webhook-endpoints.ts'
import { isoNow } from '../../shared/time.ts'
import { webhookBody, webhookHeaders } from '../../shared/webhook-signature.ts'
import { unseal } from '../crypto/seal.ts'
import type { Logger } from '../ops/logger.ts'
import { isDatabaseUnavailable } from '../store/availability.ts'
import type { Store } from '../store/store.ts'
import type { ClaimedDelivery, DeliveryOutcome } from '../store/types.ts'
import { secretKey } from './hooks.ts'
import { type AttemptResult, postOnce } from './post.ts'
import { RESOLVE_TIMEOUT_MS, type Resolver, resolveTarget } from './target.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE

export interface WebhookOptions {
  /** `serve --allow-http-webhooks`: http (and https) to loopback addresses is allowed. */
  allowHttp: boolean
  /** The waits after the 1st, 2nd, ... failed attempt; after the last, the delivery is failed. */
  scheduleMs: readonly number[]
  /** A 2xx within this long is a success. */
  attemptTimeoutMs: number
  /** How long an instance holds a delivery for one attempt; one that dies leaves it to another after this. */
  leaseMs: number
  /** How often the log and the due deliveries are looked at. */
  pollMs: number
  /** An endpoint whose attempts have all failed for this long is disabled. */
  disableAfterMs: number
  /** Attempts in flight at once per endpoint, and in all, per instance. */
  perEndpoint: number
  concurrency: number
  /** What DNS answers (tests answer for it). */
  resolve?: Resolver
  /** How long a URL's host may take to resolve, on create and change (422) and before each attempt. */
  resolveTimeoutMs: number
}

export const WEBHOOK_DEFAULTS: WebhookOptions = {
  allowHttp: false,
  scheduleMs: [5_000, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR],
  attemptTimeoutMs: 15_000,
  leaseMs: 60_000,
  pollMs: 500,
  disableAfterMs: 5 * 24 * HOUR,
  perEndpoint: 4,
  concurrency: 32,
  resolveTimeoutMs: RESOLVE_TIMEOUT_MS,
}

/** Events read per endpoint per transaction while an endpoint catches up with the log. */
const FAN_OUT_BATCH = 200

/**
 * The delivery worker (docs/webhooks.md), one per instance: it turns each enabled endpoint's share
 * of the event log into pending deliveries (following the log from the endpoint's position, in one
 * transaction per step, the endpoint's row locked), then leases due deliveries and POSTs them,
 * each attempt on its own so that a slow or dead endpoint holds only its own slots. Any number of
 * instances may run it on one database: leases make each attempt one instance's.
 */
export function startWebhookWorker(
  store: Store,
  logger: Logger,
  clock: () => number,
  options: Partial<WebhookOptions> = {},
): { stop: () => Promise<void> } {
  const o = { ...WEBHOOK_DEFAULTS, ...options }
  const owner = crypto.randomUUID()
  const busy = new Map<string, number>()
  const inFlight = new Set<Promise<void>>()
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  let running = false
  let again = false
  let key: Uint8Array | undefined
  // A database that cannot be reached is reported once by the store, not on every poll.
  const failed = (error: unknown, fields: Record<string, unknown> = {}) => {
    if (!isDatabaseUnavailable(error)) logger.error(error, { job: 'webhooks', ...fields })
  }

  const fanOut = async () => {
    const last = await store.events.last()
    for (const endpoint of await store.webhooks.behind(last, 100)) {
      if (stopped) return
      await store.transaction(async (tx) => {
        const cursor = await tx.webhooks.lockCursor(endpoint.id)
        if (!cursor || cursor.position >= last) return
        const types = cursor.eventTypes.length > 0 ? cursor.eventTypes : undefined
        const rows = await tx.events.after(
          cursor.orgId,
          { after: cursor.position, until: last },
          { types },
          FAN_OUT_BATCH,
        )
        const now = isoNow(clock())
        await tx.webhooks.addDeliveries(
          rows.map(({ entity }) => ({
            id: newId(deliveries.prefix),
            orgId: cursor.orgId,
            endpointId: cursor.id,
            eventId: entity.id as string,
            eventType: entity.type as string,
            payload: webhookBody(entity),
          })),
          now,
        )
        // Fewer than asked: everything up to `last` has been seen, matching or not.
        await tx.webhooks.followFrom(cursor.id, rows.length < FAN_OUT_BATCH ? last : rows.at(-1)!.seq)
      })
    }
  }

  const attempt = async (delivery: ClaimedDelivery): Promise<AttemptResult> => {
    try {
      const target = await resolveTarget(delivery.url, o.allowHttp, o.resolve, o.resolveTimeoutMs)
      key ??= await secretKey(store)
      const now = clock()
      const secrets = (await store.webhooks.liveSecrets(delivery.endpointId, isoNow(now))).map((s) =>
        unseal(key!, s),
      )
      const timestamp = Math.floor(now / 1000)
      const headers = webhookHeaders(secrets, delivery.eventId, timestamp, delivery.payload)
      return await postOnce(target, delivery.payload, headers, o.attemptTimeoutMs)
    } catch (error) {
      // Not the endpoint's failure: no attempt is recorded, and the lease hands it on later.
      if (isDatabaseUnavailable(error)) throw error
      return { status: null, error: `refused: ${(error as Error).message}`.slice(0, 200) }
    }
  }

  const deliver = async (delivery: ClaimedDelivery) => {
    const result = await attempt(delivery)
    const attempts = delivery.attempts + 1
    const now = clock()
    const wait = o.scheduleMs[attempts - 1]
    const outcome: DeliveryOutcome =
      result.error === null
        ? { status: 'succeeded', responseStatus: result.status, error: null, nextAttemptAt: null }
        : {
            status: wait === undefined ? 'failed' : 'pending',
            responseStatus: result.status,
            error: result.error,
            nextAttemptAt: wait === undefined ? null : isoNow(now + wait),
          }
    await store.transaction(async (tx) => {
      if (!(await tx.webhooks.finish(delivery.id, owner, outcome, isoNow(now)))) return
      if (outcome.status === 'succeeded') return await tx.webhooks.succeeded(delivery.endpointId)
      const disabled = await tx.webhooks.failed(
        delivery.endpointId,
        isoNow(now),
        isoNow(now - o.disableAfterMs),
      )
      if (!disabled) return
      const endpoint = await tx.records.find(webhookEndpoints, delivery.endpointId)
      if (!endpoint?.orgId) return
      await tx.events.append({
        id: newId(events.prefix),
        orgId: endpoint.orgId,
        now: isoNow(now),
        type: `${webhookEndpoints.eventName}.disabled`,
        resource: webhookEndpoints.name,
        resourceId: delivery.endpointId,
        data: endpoint.entity,
        actor: { type: 'system', id: 'api-server' },
        requestId: null,
      })
      logger.log('warn', 'webhook endpoint disabled', { endpoint: delivery.endpointId })
    })
    logger.log('info', 'webhook delivery', {
      delivery: delivery.id,
      endpoint: delivery.endpointId,
      event: delivery.eventId,
      attempt: attempts,
      status: outcome.status,
      responseStatus: result.status,
    })
  }

  const dispatch = async () => {
    const free = o.concurrency - inFlight.size
    if (free <= 0) return
    const skip = [...busy].filter(([, n]) => n >= o.perEndpoint).map(([id]) => id)
    const now = clock()
    const claimed = await store.webhooks.claim({
      now: isoNow(now),
      leaseUntil: isoNow(now + o.leaseMs),
      owner,
      limit: free,
      skip,
    })
    for (const delivery of claimed) {
      const count = busy.get(delivery.endpointId) ?? 0
      if (count >= o.perEndpoint) {
        // More due for this endpoint than it may have in flight: back for the next look.
        await store.webhooks.release(delivery.id, owner)
        continue
      }
      busy.set(delivery.endpointId, count + 1)
      const done: Promise<void> = deliver(delivery)
        .catch((error) => failed(error, { delivery: delivery.id }))
        .finally(() => {
          inFlight.delete(done)
          const left = (busy.get(delivery.endpointId) ?? 1) - 1
          if (left > 0) busy.set(delivery.endpointId, left)
          else busy.delete(delivery.endpointId)
          wake()
        })
      inFlight.add(done)
    }
  }

  const tick = async () => {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    running = true
    clearTimeout(timer)
    try {
      await fanOut()
      await dispatch()
    } catch (error) {
      failed(error)
    }
    running = false
    if (again) {
      again = false
      return tick()
    }
    schedule(o.pollMs)
  }
  const schedule = (ms: number) => {
    if (stopped) return
    clearTimeout(timer)
    timer = setTimeout(tick, ms)
    timer.unref()
  }
  const wake = () => schedule(0)
  schedule(0)
  return {
    stop: async () => {
      stopped = true
      clearTimeout(timer)
      // Attempts in flight finish and are recorded; one cut short is another's once its lease ends.
      await Promise.race([Promise.all(inFlight), Bun.sleep(o.attemptTimeoutMs + 1_000)])
    },
  }
}
