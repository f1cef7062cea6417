import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'
import { STORED_QUERY_TTL_MS, type StoredQuery, type StoredResult } from '../types.ts'
import { deleteOlderThan } from './purge.ts'

interface QueryRow {
  id: string
  org_id: string
  created_by: string
  target: string
  media_type: string
  body: string
  created_at: string
  updated_at: string
}

const toQuery = (row: QueryRow): StoredQuery => ({
  id: row.id,
  orgId: row.org_id,
  createdBy: row.created_by,
  target: row.target,
  mediaType: row.media_type,
  body: row.body,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

/**
 * The stored query for this request, made if the organization has none for the same target, media
 * type and body (`requestHash`); an existing one is marked used now. One that expired and that
 * housekeeping has not deleted yet is replaced (with its results), so its id never comes back.
 */
export async function saveQuery(
  x: Executor,
  query: Omit<StoredQuery, 'createdAt' | 'updatedAt'> & { requestHash: string },
  now: number,
): Promise<StoredQuery> {
  const at = isoNow(now)
  return x.transaction(async (x) => {
    await x.run('DELETE FROM stored_queries WHERE org_id = ? AND request_hash = ? AND updated_at < ?', [
      query.orgId,
      query.requestHash,
      isoNow(now - STORED_QUERY_TTL_MS),
    ])
    await x.run(
      `INSERT INTO stored_queries (id, org_id, created_by, target, media_type, body, request_hash, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (org_id, request_hash) DO UPDATE SET updated_at = excluded.updated_at`,
      [
        query.id,
        query.orgId,
        query.createdBy,
        query.target,
        query.mediaType,
        query.body,
        query.requestHash,
        at,
        at,
      ],
    )
    const row = (await x.get('SELECT * FROM stored_queries WHERE org_id = ? AND request_hash = ?', [
      query.orgId,
      query.requestHash,
    ])) as QueryRow
    return toQuery(row)
  })
}

/**
 * A stored query by id in any organization, unless it expired (whether or not housekeeping has
 * deleted it yet); callers decide between 403 and 404.
 */
export async function findQuery(x: Executor, id: string, now: number): Promise<StoredQuery | null> {
  const row = (await x.get('SELECT * FROM stored_queries WHERE id = ? AND updated_at >= ?', [
    id,
    isoNow(now - STORED_QUERY_TTL_MS),
  ])) as QueryRow | null
  return row ? toQuery(row) : null
}

/** Marks a stored query used (it expires STORED_QUERY_TTL_MS after its last use). */
export async function touchQuery(x: Executor, id: string, now: number): Promise<void> {
  await x.run('UPDATE stored_queries SET updated_at = ? WHERE id = ?', [isoNow(now), id])
}

/** Deletes a stored query and its results. */
export async function deleteQuery(x: Executor, id: string): Promise<void> {
  await x.run('DELETE FROM stored_queries WHERE id = ?', [id])
}

export async function saveResult(
  x: Executor,
  tokenHash: string,
  result: StoredResult,
  now: number,
): Promise<void> {
  const at = isoNow(now)
  await x.run(
    `INSERT INTO query_results (token_hash, query_id, org_id, headers, body, expires_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      tokenHash,
      result.queryId,
      result.orgId,
      JSON.stringify(result.headers),
      result.body,
      result.expiresAt,
      at,
      at,
    ],
  )
}

/** A stored result that has not expired, by the hash of its token. */
export async function findResult(x: Executor, tokenHash: string, now: number): Promise<StoredResult | null> {
  const row = (await x.get('SELECT * FROM query_results WHERE token_hash = ? AND expires_at > ?', [
    tokenHash,
    isoNow(now),
  ])) as {
    query_id: string
    org_id: string
    headers: string
    body: string
    expires_at: string
  } | null
  if (!row) return null
  return {
    queryId: row.query_id,
    orgId: row.org_id,
    headers: JSON.parse(row.headers) as Record<string, string>,
    body: row.body,
    expiresAt: row.expires_at,
  }
}

/** Deletes at most `limit` expired stored results; returns how many. */
export async function purgeExpiredResults(x: Executor, now: number, limit: number): Promise<number> {
  // A result is expired once `expires_at <= now`: before now + 1 ms.
  return deleteOlderThan(x, 'query_results', 'expires_at', now + 1, limit)
}

/** Deletes at most `limit` stored queries (with their results) unused for STORED_QUERY_TTL_MS; returns how many. */
export async function purgeExpiredQueries(x: Executor, now: number, limit: number): Promise<number> {
  return deleteOlderThan(x, 'stored_queries', 'updated_at', now - STORED_QUERY_TTL_MS, limit)
}
