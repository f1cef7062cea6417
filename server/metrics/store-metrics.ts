import { Gauge, Histogram, type Registry } from 'prom-client'
import type { Store } from '../store/store.ts'
import type { WebhookBacklog } from '../store/types.ts'

/** Deliveries counted per state at a scrape, at most: one short index range each, however large the backlog. */
const DELIVERY_COUNT_CAP = 100_000

/** Statement latency, from a tenth of a millisecond (SQLite's reads) to seconds (a lock waited for). */
const STATEMENT_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
]

/**
 * Runs a scrape-time read; while the database does not answer, the gauge keeps its last value
 * (the outage itself shows in `/readyz` and in the 503s of `api_http_requests_total`).
 */
async function quietly(read: () => Promise<void>): Promise<void> {
  try {
    await read()
  } catch {}
}

/**
 * The database's families (docs/operations.md, "Metrics"): statement latency by backend and kind,
 * the connections in use, the event log's newest position and the webhook worker's backlog. The
 * last two are read when Prometheus scrapes, each with one indexed statement.
 */
export function registerStoreMetrics(registry: Registry, store: Store): void {
  const { timing } = store
  const backend = timing.backend
  const statements = new Histogram({
    name: 'api_db_statement_duration_seconds',
    help: 'Time a call to the database took, by backend and kind (read, write, or a whole transaction).',
    labelNames: ['backend', 'kind'] as const,
    buckets: STATEMENT_BUCKETS,
    registers: [registry],
  })
  // Every kind from the start, so that a rate over each exists before its first statement.
  for (const kind of ['read', 'write', 'transaction']) statements.zero({ backend, kind })
  const kinds = {
    read: statements.labels(backend, 'read'),
    write: statements.labels(backend, 'write'),
    transaction: statements.labels(backend, 'transaction'),
  }
  timing.observe = (kind, seconds) => kinds[kind].observe(seconds)
  new Gauge({
    name: 'api_db_pool_max_connections',
    help: 'Connections this replica may hold to the database (PostgreSQL: its pool, without the LISTEN one; SQLite: 1).',
    labelNames: ['backend'] as const,
    registers: [registry],
  }).set({ backend }, timing.connections)
  new Gauge({
    name: 'api_db_pool_connections',
    help: 'Connections of the pool in use (an open transaction, a statement running) and idle, as this replica counts them.',
    labelNames: ['backend', 'state'] as const,
    registers: [registry],
    collect() {
      const inUse = Math.min(timing.busy, timing.connections)
      this.set({ backend, state: 'in_use' }, inUse)
      this.set({ backend, state: 'idle' }, timing.connections - inUse)
    },
  })
  new Gauge({
    name: 'api_db_pool_waiting',
    help: 'Statements and transactions waiting for a connection, every one of the pool being in use.',
    labelNames: ['backend'] as const,
    registers: [registry],
    collect() {
      this.set({ backend }, Math.max(0, timing.busy - timing.connections))
    },
  })
  // The three gauges below are read in one go per scrape: prom-client collects them side by side.
  let reading: Promise<{ last: number; backlog: WebhookBacklog }> | undefined
  const snapshot = () => {
    reading ??= (async () => ({
      last: await store.events.last(),
      backlog: await store.webhooks.backlog(DELIVERY_COUNT_CAP),
    }))().finally(() => {
      reading = undefined
    })
    return reading
  }
  const position = new Gauge({
    name: 'api_event_log_position',
    help: "The event log's newest position (sequence number), as this replica read it at the scrape.",
    registers: [registry],
    collect: () =>
      quietly(async () => {
        position.set((await snapshot()).last)
      }),
  })
  const lag = new Gauge({
    name: 'api_webhook_event_log_lag_events',
    help: 'Events of the log not yet turned into deliveries by the enabled endpoint furthest behind (0 when none is enabled).',
    registers: [registry],
    collect: () =>
      quietly(async () => {
        const { last, backlog } = await snapshot()
        lag.set(backlog.oldestPosition === null ? 0 : Math.max(0, last - backlog.oldestPosition))
      }),
  })
  const deliveries = new Gauge({
    name: 'api_webhook_deliveries',
    help: `Webhook deliveries pending (to be attempted) and failed (given up), each counted up to ${DELIVERY_COUNT_CAP}.`,
    labelNames: ['state'] as const,
    registers: [registry],
    collect: () =>
      quietly(async () => {
        const { backlog } = await snapshot()
        deliveries.set({ state: 'pending' }, backlog.pending)
        deliveries.set({ state: 'failed' }, backlog.failed)
      }),
  })
}
