import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { sha256Hex } from '../../shared/crypto.ts'
import { randomId } from '../../shared/ids.ts'
import { isoNow } from '../../shared/time.ts'
import type { Tx } from '../store/store.ts'
import type { StoredQuery } from '../store/types.ts'
import type { QueryBody } from './media.ts'

/** A stored result can be fetched for this long after the QUERY that made it. */
const RESULT_TTL_MS = 10 * 60 * 1000
/**
 * Larger responses are not stored, and their QUERY answers without Content-Location. A page holds
 * at most 100 records, so only pages of very large records (long post bodies) come near it.
 */
const MAX_RESULT_BYTES = 16 * 1024 * 1024
/** Stored queries are marked used at most this often, so that GETs rarely write. */
const TOUCH_INTERVAL_MS = 3600 * 1000

/** The path of a stored query. */
export const queryPath = (prefix: string, id: string) => `${prefix}/queries/${id}`

/**
 * Keeps a QUERY's body as a stored query of the caller's organization: the same target, media type
 * and body reuse one stored query (and so one Location). Ids are TypeIDs with 74 random bits.
 */
export async function storeQuery(
  store: Tx,
  who: { orgId: string; subject: string },
  target: string,
  body: QueryBody,
  now: number,
): Promise<{ query: StoredQuery; created: boolean }> {
  const id = randomId('qry', now)
  const query = await store.queries.save(
    {
      id,
      orgId: who.orgId,
      createdBy: who.subject,
      target,
      mediaType: body.mediaType,
      body: body.text,
      requestHash: sha256Hex(JSON.stringify([target, body.mediaType, body.text])),
    },
    now,
  )
  return { query, created: query.id === id }
}

/** Drops a stored query made by a QUERY that then failed, so failures leave nothing behind. */
export async function forgetQuery(store: Tx, id: string): Promise<void> {
  await store.queries.delete(id)
}

export function shouldTouch(query: StoredQuery, now: number): boolean {
  return Date.parse(query.updatedAt) < now - TOUCH_INTERVAL_MS
}

/**
 * Keeps one response for GET on its Content-Location, under a 256-bit random token of which only
 * the SHA-256 is stored. Undefined (nothing stored) past MAX_RESULT_BYTES.
 */
export async function storeResult(
  store: Tx,
  prefix: string,
  query: StoredQuery,
  headers: Record<string, string>,
  body: string,
  now: number,
): Promise<string | undefined> {
  if (new TextEncoder().encode(body).length > MAX_RESULT_BYTES) return undefined
  const token = encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(32)))
  await store.queries.saveResult(
    resultTokenHash(token),
    { queryId: query.id, orgId: query.orgId, headers, body, expiresAt: isoNow(now + RESULT_TTL_MS) },
    now,
  )
  return `${queryPath(prefix, query.id)}/results/${token}`
}

export const resultTokenHash = (token: string) => sha256Hex(`result:${token}`)
