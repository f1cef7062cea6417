import { canonicalJson } from '../../shared/canonical-json.ts'
import { sha256Hex } from '../../shared/crypto.ts'
import { badRequest } from '../../shared/errors.ts'
import type { IdempotencyKey, IdempotentAnswer } from '../resources/idempotency.ts'

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

/**
 * The request's `Idempotency-Key` with a fingerprint of what it asks (method, path and the body
 * as parsed), or undefined without the header. 400 for a key that is not 1 to 255 visible ASCII
 * characters.
 */
export function idempotencyKeyOf(request: Request, path: string, body: unknown): IdempotencyKey | undefined {
  const key = request.headers.get('idempotency-key')
  if (key === null) return undefined
  if (!KEY_PATTERN.test(key)) {
    throw badRequest('The Idempotency-Key header must be 1 to 255 visible ASCII characters.', [
      { field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' },
    ])
  }
  return { key, fingerprint: sha256Hex(`${request.method} ${path}\n${canonicalJson(body)}`) }
}

/** The HTTP response of an idempotent write; a replay says so with `Idempotent-Replayed: true`. */
export function idempotentResponse({ response, replayed }: IdempotentAnswer): Response {
  const headers = replayed ? { ...response.headers, 'Idempotent-Replayed': 'true' } : response.headers
  return new Response(response.body, { status: response.status, headers })
}
