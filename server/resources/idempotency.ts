import { ApiError } from '../../shared/errors.ts'
import type { Principal } from '../auth/tokens.ts'
import { seal, unseal } from '../crypto/seal.ts'
import type { Tx } from '../store/store.ts'
import type { KeyId, StoredResponse } from '../store/types.ts'
import type { EngineContext } from './context.ts'

export type { StoredResponse } from '../store/types.ts'

/** An `Idempotency-Key` as a front door read it: the key, and a fingerprint of the request it came with. */
export interface IdempotencyKey {
  key: string
  fingerprint: string
}

export interface IdempotentAnswer {
  response: StoredResponse
  /** True when the answer is the stored one of an earlier request with the same key. */
  replayed: boolean
}

/** Marks a kept answer whose body is sealed: it showed a secret (a resource's `revealed` values). */
const SEALED = 'sealed:'
const answersKey = (tx: Tx) => tx.settings.instanceSecret('sealed-answers')

async function keep(tx: Tx, response: StoredResponse, sealed: boolean): Promise<StoredResponse> {
  if (!sealed) return response
  return { ...response, body: SEALED + seal(await answersKey(tx), response.body) }
}

async function opened(tx: Tx, response: StoredResponse): Promise<StoredResponse> {
  if (!response.body.startsWith(SEALED)) return response
  return { ...response, body: unseal(await answersKey(tx), response.body.slice(SEALED.length)) }
}

function reusedWithAnotherRequest(): ApiError {
  return new ApiError('VALIDATION_ERROR', 'This Idempotency-Key was used with another request body.', [
    { field: 'Idempotency-Key', message: 'was already used with a different body' },
  ])
}

/**
 * Performs a write at most once per key (contract, `Idempotency-Key`). Any front door can use it:
 * REST creates today, actions and mutations alike.
 *
 * - `authorize` runs first on every request, replays included: a replay passes the same checks as
 *   a first request, with the principal's scopes and role as they are now.
 * - `perform` runs the write and renders its answer in one transaction with the key's row. After a
 *   crash a retry finds both (and replays) or neither (and performs the write once); no key is ever
 *   left pending. Concurrent requests with one key queue on the database's write lock: the first
 *   performs the write and the others replay it.
 * - Only 2xx answers are kept: a failed write rolls back and leaves the key free for a corrected retry.
 * - `sealed`: the answer shows a secret (a webhook endpoint's signing secret), so it is kept sealed
 *   under an instance key, as the secret itself is; a replay still shows it, since the first answer
 *   may never have reached the client.
 */
export async function runIdempotent(
  ctx: EngineContext,
  principal: Principal,
  key: IdempotencyKey | undefined,
  authorize: () => void,
  perform: (tx: Tx) => Promise<StoredResponse>,
  sealed = false,
): Promise<IdempotentAnswer> {
  authorize()
  if (key === undefined) return { response: await perform(ctx.store), replayed: false }
  const id: KeyId = {
    orgId: principal.orgId,
    clientId: principal.clientId,
    subject: principal.subject,
    key: key.key,
  }
  return await ctx.store.transaction(async (tx): Promise<IdempotentAnswer> => {
    await tx.idempotency.lock(id)
    const now = ctx.clock()
    const found = await tx.idempotency.find(id, now)
    if (found) {
      if (found.requestHash !== key.fingerprint) throw reusedWithAnotherRequest()
      return { response: await opened(tx, found.response), replayed: true }
    }
    const response = await perform(tx)
    if (response.status >= 200 && response.status < 300)
      await tx.idempotency.save(
        id,
        { requestHash: key.fingerprint, response: await keep(tx, response, sealed) },
        now,
      )
    return { response, replayed: false }
  })
}
