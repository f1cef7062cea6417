import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'
import type { KeyRow } from '../types.ts'

export async function insertKey(
  x: Executor,
  kid: string,
  privateJwk: string,
  publicJwk: string,
  now = Date.now(),
): Promise<void> {
  const at = isoNow(now)
  await x.transaction(async (x) => {
    await x.run('UPDATE signing_keys SET retired_at = ?, updated_at = ? WHERE retired_at IS NULL', [at, at])
    await x.run(
      'INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      [kid, privateJwk, publicJwk, at, at],
    )
  })
}

/** The signing key (newest, not retired) and every key retired less than `keepMs` ago, newest first. */
export async function liveKeys(x: Executor, keepMs: number, now = Date.now()): Promise<KeyRow[]> {
  return (await x.all(
    'SELECT * FROM signing_keys WHERE retired_at IS NULL OR retired_at > ? ORDER BY created_at DESC',
    [isoNow(now - keepMs)],
  )) as KeyRow[]
}

/**
 * The first signing key of a database, unless another instance made one meanwhile (replicas
 * starting together would otherwise each make one and retire the others'). Returns whether this
 * one was kept.
 */
export async function insertFirstKey(
  x: Executor,
  kid: string,
  privateJwk: string,
  publicJwk: string,
  now = Date.now(),
): Promise<boolean> {
  return x.transaction(async (x) => {
    if (x.dialect.lockKey !== null) await x.get(x.dialect.lockKey, ['signing_keys'])
    if (await x.get('SELECT kid FROM signing_keys WHERE retired_at IS NULL')) return false
    const at = isoNow(now)
    await x.run(
      'INSERT INTO signing_keys (kid, private_jwk, public_jwk, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      [kid, privateJwk, publicJwk, at, at],
    )
    return true
  })
}
