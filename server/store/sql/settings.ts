import { encodeBase64 } from '@oslojs/encoding'
import { isoNow } from '../../../shared/time.ts'
import type { Executor } from '../executor.ts'

/** An instance-wide random secret, created on first use and kept in the database. */
export async function instanceSecret(x: Executor, name: string): Promise<Uint8Array> {
  const fresh = encodeBase64(crypto.getRandomValues(new Uint8Array(32)))
  const now = isoNow()
  await x.run(
    'INSERT INTO settings (name, value, created_at, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO NOTHING',
    [name, fresh, now, now],
  )
  const { value } = (await x.get('SELECT value FROM settings WHERE name = ?', [name])) as { value: string }
  return Uint8Array.from(atob(value), (c) => c.charCodeAt(0))
}
