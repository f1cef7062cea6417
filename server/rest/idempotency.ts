import { sha256 } from '@oslojs/crypto/sha2'
import { encodeHexLowerCase } from '@oslojs/encoding'
import { ApiError, badRequest } from '../../shared/errors.ts'
import type { Principal } from '../auth/tokens.ts'
import type { Database } from '../store/db.ts'
import { claimKey, completeKey, type KeyId, releaseKey } from '../store/idempotency.ts'

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

/** JSON with sorted keys, so that two encodings of the same body hash alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

/**
 * Runs a POST under its `Idempotency-Key` (contract): the same key and body replays the first
 * response with `Idempotent-Replayed: true`, another body is 422, a request still in flight is 409.
 * Only successful responses are kept; a failed request frees its key for a corrected retry.
 */
export async function withIdempotency(
  db: Database,
  clock: () => number,
  request: Request,
  principal: Principal,
  path: string,
  body: unknown,
  run: () => Response | Promise<Response>,
): Promise<Response> {
  const key = request.headers.get('idempotency-key')
  if (key === null) return run()
  if (!KEY_PATTERN.test(key)) {
    throw badRequest('The Idempotency-Key header must be 1 to 255 visible ASCII characters.', [
      { field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' },
    ])
  }
  const id: KeyId = { orgId: principal.orgId, clientId: principal.clientId, key }
  const hash = encodeHexLowerCase(sha256(new TextEncoder().encode(`${path}\n${canonical(body)}`)))
  const claim = claimKey(db, id, hash, clock())
  if (claim.state === 'mismatch') {
    throw new ApiError('VALIDATION_ERROR', 'This Idempotency-Key was used with another request body.', [
      { field: 'Idempotency-Key', message: 'was already used with a different body' },
    ])
  }
  if (claim.state === 'in-flight') {
    throw new ApiError('CONFLICT', 'A request with this Idempotency-Key is still being processed.', [
      { field: 'Idempotency-Key', message: 'is in use by a request in flight; retry later' },
    ])
  }
  if (claim.state === 'replay') {
    const { status, headers, body: stored } = claim.response
    return new Response(stored, { status, headers: { ...headers, 'Idempotent-Replayed': 'true' } })
  }
  let response: Response
  try {
    response = await run()
  } catch (error) {
    releaseKey(db, id)
    throw error
  }
  if (response.status >= 300) {
    releaseKey(db, id)
    return response
  }
  const text = await response.text()
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  completeKey(db, id, { status: response.status, headers, body: text }, clock())
  return new Response(text, { status: response.status, headers })
}
