import { type ApiError, invalid } from '../../shared/errors.ts'
import type { Principal } from '../auth/tokens.ts'
import { seal, unseal } from '../crypto/seal.ts'
import type { Tx } from '../store/store.ts'
import type { KeyId, StoredAnswer, StoredResponse } from '../store/types.ts'
import type { EngineContext } from './context.ts'
import { type PreparedWrite, runWrite } from './prepared-write.ts'

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
  return invalid('This Idempotency-Key was used with another request body.', [
    { field: 'Idempotency-Key', message: 'was already used with a different body' },
  ])
}

async function replay(tx: Tx, found: StoredAnswer, key: IdempotencyKey): Promise<IdempotentAnswer> {
  if (found.requestHash !== key.fingerprint) throw reusedWithAnotherRequest()
  return { response: await opened(tx, found.response), replayed: true }
}

/**
 * Performs a prepared write at most once per key (contract, `Idempotency-Key`), for every front
 * door: REST creates and actions, and whatever else takes a key.
 *
 * - The front door has prepared the write (server/resources/prepared-write.ts) before calling
 *   this: authorization and validation ran once, on every request, replays included, so a replay
 *   passes the same checks as a first request, with the principal's scopes and role as they are now.
 * - An answer already kept for the key replays at once: the write's `check` (a webhook URL's DNS
 *   lookup) does not run again, since a replay writes nothing and answers what the first request
 *   answered.
 * - Otherwise `check` runs, outside any transaction, and then `apply` and `answer` run in the one
 *   transaction of the write, which also holds the key's row: after a crash a retry finds both
 *   (and replays) or neither (and performs the write once); no key is ever left pending.
 *   Concurrent requests with one key queue on the key's lock: the first performs the write and
 *   the others, finding its answer once they hold the lock, replay it.
 * - Only 2xx answers are kept: a failed write rolls back and leaves the key free for a corrected retry.
 * - `sealed`: the answer shows a secret (a webhook endpoint's signing secret), so it is kept sealed
 *   under an instance key, as the secret itself is; a replay still shows it, since the first answer
 *   may never have reached the client.
 */
export async function runIdempotent<T>(
  ctx: EngineContext,
  principal: Principal,
  key: IdempotencyKey | undefined,
  write: PreparedWrite<T>,
  answer: (result: T) => StoredResponse,
  sealed = false,
): Promise<IdempotentAnswer> {
  if (key === undefined) return { response: answer(await runWrite(ctx, write)), replayed: false }
  const id: KeyId = {
    orgId: principal.orgId,
    clientId: principal.clientId,
    subject: principal.subject,
    key: key.key,
  }
  const kept = await ctx.store.idempotency.find(id, ctx.clock())
  if (kept) return await replay(ctx.store, kept, key)
  await write.check()
  return await ctx.store.transaction(async (tx): Promise<IdempotentAnswer> => {
    await tx.idempotency.lock(id)
    const now = ctx.clock()
    const found = await tx.idempotency.find(id, now)
    if (found) return await replay(tx, found, key)
    const response = answer(await write.apply({ ...ctx, store: tx }))
    if (response.status >= 200 && response.status < 300)
      await tx.idempotency.save(
        id,
        { requestHash: key.fingerprint, response: await keep(tx, response, sealed) },
        now,
      )
    return { response, replayed: false }
  })
}
