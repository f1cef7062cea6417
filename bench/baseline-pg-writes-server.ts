/**
 * The write baseline on PostgreSQL: raw `Bun.serve` + `Bun.sql` running, for
 * `POST /api/v2/orders` with an `Idempotency-Key`, the statements the product's create runs, in
 * the same order and in one transaction (what PostgreSQL's statement log shows for the product):
 *
 *   BEGIN
 *   SELECT pg_advisory_xact_lock(hashtextextended(<key>, 0))      -- the key, against a concurrent retry
 *   SELECT ... FROM idempotency_keys WHERE ...                    -- no earlier answer
 *   SAVEPOINT s0
 *   SELECT 1 FROM users WHERE id = $1 AND org_id = $2             -- the order's user exists
 *   INSERT INTO orders ...
 *   SELECT pg_advisory_xact_lock(7461001)                         -- the event-order lock
 *   INSERT INTO events ...
 *   RELEASE SAVEPOINT s0
 *   INSERT INTO idempotency_keys ... ON CONFLICT ... DO UPDATE    -- the answer, for replays
 *   SELECT pg_notify('api_changes', <instance>)                   -- other replicas drop caches
 *   COMMIT
 *
 * No authentication, validation, framework or access log. `--variant no-lock` leaves out the
 * event-order lock (what the lock costs); `--variant no-lock-no-notify` the NOTIFY too (NOTIFY
 * also serializes commits: PostgreSQL queues notifications under one database-wide lock taken at
 * commit). `--variant lock-last` runs the same statements with the event's lock and insert moved
 * after the idempotency row, just before the NOTIFY and COMMIT: the lock held over three round
 * trips instead of five.
 *
 * Run: bun bench/baseline-pg-writes-server.ts --db URL --org ID --client ID --variant V --port N
 */
import { parseArgs } from 'node:util'
import { SQL } from 'bun'
import { newId } from '../shared/ids.ts'

const VARIANTS = ['full', 'lock-last', 'no-lock', 'no-lock-no-notify'] as const
type Variant = (typeof VARIANTS)[number]

const EVENT_ORDER_LOCK = 7_461_001
const instance = crypto.randomUUID()

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    org: { type: 'string' },
    client: { type: 'string' },
    variant: { type: 'string', default: 'full' },
    port: { type: 'string', default: '0' },
  },
})
const variant = values.variant as Variant
if (!values.db || !values.org || !values.client || !VARIANTS.includes(variant)) {
  console.error(
    `usage: bun bench/baseline-pg-writes-server.ts --db URL --org ID --client ID --variant ${VARIANTS.join('|')} [--port N]`,
  )
  process.exit(2)
}
const orgId = values.org
const clientId = values.client
// The product's pool size (server/store/postgres/store.ts).
const sql = new SQL(values.db, { max: 10 })

interface Body {
  userId: string
  amount: { value: number; currency: string }
}

async function appendEvent(tx: SQL, lock: boolean, id: string, text: string, now: string) {
  if (lock) await tx`SELECT pg_advisory_xact_lock(${EVENT_ORDER_LOCK})`
  await tx`INSERT INTO events (id, org_id, type, resource, resource_id, data, actor_type, actor_id,
      request_id, created_at, updated_at)
    VALUES (${newId('evt')}, ${orgId}, 'order.created', 'orders', ${id}, ${text}, 'client', ${clientId},
      ${crypto.randomUUID()}, ${now}, ${now})`
}

async function create(key: string, body: Body): Promise<{ id: string; text: string }> {
  const now = new Date().toISOString()
  const id = newId('ord')
  const order = {
    id,
    userId: body.userId,
    status: 'pending',
    amount: body.amount,
    createdAt: now,
    updatedAt: now,
  }
  const text = JSON.stringify(order)
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtextextended(${JSON.stringify([orgId, clientId, clientId, key])}, 0))`
    await tx`SELECT request_hash, status, headers, body FROM idempotency_keys
      WHERE org_id = ${orgId} AND client_id = ${clientId} AND subject = ${clientId} AND key = ${key}
        AND created_at >= ${new Date(Date.now() - 86_400_000).toISOString()}`
    await tx.savepoint(async (sp: SQL) => {
      const [user] = await sp`SELECT 1 FROM users WHERE id = ${body.userId} AND org_id = ${orgId}`
      if (!user) throw new Error(`no user ${body.userId}`)
      await sp`INSERT INTO orders (id, org_id, user_id, status, amount, currency, created_at, updated_at)
        VALUES (${id}, ${orgId}, ${body.userId}, 'pending', ${body.amount.value}, ${body.amount.currency}, ${now}, ${now})`
      if (variant !== 'lock-last') await appendEvent(sp, variant === 'full', id, text, now)
    })
    const headers = JSON.stringify({ location: `/api/v2/orders/${id}`, 'content-type': 'application/json' })
    await tx`INSERT INTO idempotency_keys (org_id, client_id, subject, key, request_hash, status, headers, body, created_at)
      VALUES (${orgId}, ${clientId}, ${clientId}, ${key}, ${'0'.repeat(64)}, 201, ${headers}, ${text}, ${now})
      ON CONFLICT (org_id, client_id, subject, key) DO UPDATE SET request_hash = excluded.request_hash,
        status = excluded.status, headers = excluded.headers, body = excluded.body,
        created_at = excluded.created_at`
    if (variant === 'lock-last') await appendEvent(tx, true, id, text, now)
    if (variant !== 'no-lock-no-notify') await tx.notify('api_changes', instance)
  })
  return { id, text }
}

Bun.serve({
  hostname: '127.0.0.1',
  port: Number(values.port),
  routes: {
    '/api/v2/orders': {
      POST: async (request) => {
        const key = request.headers.get('idempotency-key')
        if (!key) return new Response(null, { status: 400 })
        const { id, text } = await create(key, (await request.json()) as Body)
        return new Response(text, {
          status: 201,
          headers: { 'Content-Type': 'application/json', Location: `/api/v2/orders/${id}` },
        })
      },
    },
  },
  // The bench waits for any answer before it starts.
  fetch: () => new Response(null, { status: 204 }),
})
