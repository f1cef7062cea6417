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
