import type { Executor } from '../executor.ts'
import type {
  ClaimedDelivery,
  DeliveryOutcome,
  EndpointCursor,
  NewDelivery,
  WebhookBacklog,
} from '../types.ts'

/**
 * The webhook worker's statements (docs/webhooks.md): each endpoint's position in the event log,
 * its sealed signing secrets, and the leases on pending deliveries. The records themselves
 * (endpoints, deliveries) are read and written through the declared resources like any other.
 */

type CursorRow = { id: string; org_id: string; event_types: string; log_position: number | string }

const cursorOf = (row: CursorRow): EndpointCursor => ({
  id: row.id,
  orgId: row.org_id,
  eventTypes: JSON.parse(row.event_types) as string[],
  position: Number(row.log_position),
})

/** Moves an endpoint's position forward (never back) to `position`. */
export async function followFrom(x: Executor, endpointId: string, position: number): Promise<void> {
  await x.run('UPDATE webhook_endpoints SET log_position = ? WHERE id = ? AND log_position < ?', [
    position,
    endpointId,
    position,
  ])
}

export async function addSecret(x: Executor, endpointId: string, sealed: string, now: string): Promise<void> {
  await x.run('INSERT INTO webhook_secrets (endpoint_id, sealed, created_at) VALUES (?, ?, ?)', [
    endpointId,
    sealed,
    now,
  ])
}

/** Gives the endpoint's secrets that do not expire yet an expiry (`until`), and drops those expired by `now`. */
export async function expireSecrets(
  x: Executor,
  endpointId: string,
  until: string,
  now: string,
): Promise<void> {
  await x.run('DELETE FROM webhook_secrets WHERE endpoint_id = ? AND expires_at <= ?', [endpointId, now])
  await x.run('UPDATE webhook_secrets SET expires_at = ? WHERE endpoint_id = ? AND expires_at IS NULL', [
    until,
    endpointId,
  ])
}

/** The endpoint's sealed secrets that still sign at `now`, newest first. */
export async function liveSecrets(x: Executor, endpointId: string, now: string): Promise<string[]> {
  const rows = await x.all<{ sealed: string }>(
    'SELECT sealed FROM webhook_secrets WHERE endpoint_id = ? AND (expires_at IS NULL OR expires_at > ?) ORDER BY id DESC',
    [endpointId, now],
  )
  return rows.map((row) => row.sealed)
}

/** Enabled endpoints whose position is before `last`, furthest behind first. */
export async function endpointsBehind(x: Executor, last: number, limit: number): Promise<EndpointCursor[]> {
  const rows = await x.all<CursorRow>(
    'SELECT id, org_id, event_types, log_position FROM webhook_endpoints WHERE enabled = TRUE AND log_position < ? ORDER BY log_position, id LIMIT ?',
    [last, limit],
  )
  return rows.map(cursorOf)
}

/** The endpoint's position, locked until the transaction ends; null when it is gone or disabled. */
export async function lockCursor(x: Executor, endpointId: string): Promise<EndpointCursor | null> {
  const row = await x.get<CursorRow>(
    `SELECT id, org_id, event_types, log_position FROM webhook_endpoints WHERE id = ? AND enabled = TRUE${x.dialect.forUpdate}`,
    [endpointId],
  )
  return row ? cursorOf(row) : null
}

/** New pending deliveries, due now; one already there for the same endpoint and event is kept as it is. */
export async function addDeliveries(x: Executor, deliveries: NewDelivery[], now: string): Promise<void> {
  for (const d of deliveries) {
    await x.run(
      `INSERT INTO webhook_deliveries (id, org_id, endpoint_id, event_id, event_type, status, attempts,
         next_attempt_at, payload, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?) ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
      [d.id, d.orgId, d.endpointId, d.eventId, d.eventType, now, d.payload, now, now],
    )
  }
}

/**
 * Leases up to `limit` due deliveries to `owner` until `leaseUntil`, leaving out the endpoints in `skip` (those this instance is busy with). One statement:
 * on PostgreSQL the rows another instance is leasing at the same moment are skipped (`FOR UPDATE
 * SKIP LOCKED`), and a row leased and committed is no longer due for anyone until its lease ends;
 * SQLite's one writer makes the statement atomic by itself.
 */
export async function claimDeliveries(
  x: Executor,
  request: { now: string; leaseUntil: string; owner: string; limit: number; skip: readonly string[] },
): Promise<ClaimedDelivery[]> {
  const { now, leaseUntil, owner, limit, skip } = request
  const lock = x.dialect.forUpdate ? `${x.dialect.forUpdate} OF d SKIP LOCKED` : ''
  const notIn = skip.length > 0 ? ` AND d.endpoint_id NOT IN (${skip.map(() => '?').join(', ')})` : ''
  const rows = await x.all<{
    id: string
    endpoint_id: string
    org_id: string
    event_id: string
    attempts: number
    payload: string
  }>(
    `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
     WHERE id IN (
       SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
       WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?)
         AND e.enabled = TRUE${notIn}
       ORDER BY d.next_attempt_at, d.id LIMIT ?${lock}
     )
     RETURNING id, endpoint_id, org_id, event_id, attempts, payload`,
    [owner, leaseUntil, now, now, ...skip, limit],
  )
  if (rows.length === 0) return []
  const ids = [...new Set(rows.map((row) => row.endpoint_id))]
  const urls = new Map(
    (
      await x.all<{ id: string; url: string }>(
        `SELECT id, url FROM webhook_endpoints WHERE id IN (${ids.map(() => '?').join(', ')})`,
        ids,
      )
    ).map((row) => [row.id, row.url]),
  )
  return rows
    .filter((row) => urls.has(row.endpoint_id))
    .map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      orgId: row.org_id,
      eventId: row.event_id,
      attempts: Number(row.attempts),
      payload: row.payload,
      url: urls.get(row.endpoint_id)!,
    }))
}

/**
 * Records an attempt's outcome and ends the lease, if `owner` still holds it (a lease that ran out
 * and was taken over belongs to the instance that took it); false otherwise.
 */
export async function finishDelivery(
  x: Executor,
  id: string,
  owner: string,
  outcome: DeliveryOutcome,
  now: string,
): Promise<boolean> {
  const changed = await x.run(
    `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, last_response_status = ?, last_error = ?,
       next_attempt_at = ?, lease_owner = NULL, lease_until = NULL, updated_at = ?
     WHERE id = ? AND lease_owner = ?`,
    [outcome.status, outcome.responseStatus, outcome.error, outcome.nextAttemptAt, now, id, owner],
  )
  return changed > 0
}

/** Gives a lease back without an attempt. */
export async function releaseDelivery(x: Executor, id: string, owner: string): Promise<void> {
  await x.run(
    'UPDATE webhook_deliveries SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?',
    [id, owner],
  )
}

/** A failed delivery back to pending, due `now`; false when it is not failed. */
export async function retryDelivery(x: Executor, id: string, now: string): Promise<boolean> {
  const changed = await x.run(
    "UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ? AND status = 'failed'",
    [now, now, id],
  )
  return changed > 0
}

/** A success: the endpoint is not failing any more. */
export async function endpointSucceeded(x: Executor, endpointId: string): Promise<void> {
  await x.run(
    'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL',
    [endpointId],
  )
}

/**
 * A failure: the endpoint fails since `now` unless it already did; when it has failed since
 * `disableBefore` or earlier it is disabled, and its failures are forgotten, so that turned on
 * again it has the whole time again before the next disable. True when this call disabled it.
 */
export async function endpointFailed(
  x: Executor,
  endpointId: string,
  now: string,
  disableBefore: string,
): Promise<boolean> {
  // Only while enabled: an attempt that ends after the disable does not start the next count.
  await x.run(
    'UPDATE webhook_endpoints SET failing_since = ? WHERE id = ? AND enabled = TRUE AND failing_since IS NULL',
    [now, endpointId],
  )
  const changed = await x.run(
    `UPDATE webhook_endpoints SET enabled = FALSE, failing_since = NULL, updated_at = ?
     WHERE id = ? AND enabled = TRUE AND failing_since <= ?`,
    [now, endpointId, disableBefore],
  )
  return changed > 0
}

/**
 * What the metrics show of the worker's backlog (docs/operations.md, "Metrics"): the position of
 * the enabled endpoint furthest behind in the event log (null when none is enabled), and the
 * deliveries pending and failed, each counted up to `cap` so that a scrape stays one short index
 * range however large the backlog.
 */
export async function webhookBacklog(x: Executor, cap: number): Promise<WebhookBacklog> {
  const oldest = await x.get<{ position: number | string | null }>(
    'SELECT min(log_position) AS position FROM webhook_endpoints WHERE enabled = TRUE',
  )
  const count = async (status: string) => {
    const row = await x.get<{ n: number | string }>(
      'SELECT count(*) AS n FROM (SELECT 1 FROM webhook_deliveries WHERE status = ? LIMIT ?) AS capped',
      [status, cap],
    )
    return Number(row?.n ?? 0)
  }
  return {
    oldestPosition: oldest?.position == null ? null : Number(oldest.position),
    pending: await count('pending'),
    failed: await count('failed'),
  }
}
