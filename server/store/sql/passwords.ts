import type { Executor } from '../executor.ts'

export async function setPasswordHash(x: Executor, userId: string, hash: string): Promise<void> {
  await x.run('UPDATE users SET password_hash = ? WHERE id = ?', [hash, userId])
}

export async function hasUser(x: Executor, orgId: string, email: string): Promise<boolean> {
  return (await x.get('SELECT 1 FROM users WHERE org_id = ? AND email = ?', [orgId, email])) !== null
}
