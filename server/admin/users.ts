import { ApiError } from '../../shared/errors.ts'
import { users } from '../../shared/resources/users.ts'
import type { EngineContext } from '../resources/context.ts'
import { CursorCodec } from '../resources/cursor.ts'
import { createRecord } from '../resources/writes.ts'
import type { Database } from '../store/db.ts'
import { findOrg } from '../store/orgs.ts'
import { setPasswordHash } from '../store/passwords.ts'
import { systemPrincipal } from './system.ts'

export const MIN_PASSWORD_LENGTH = 8

/** Input an admin command cannot use; the command line exits 2 for it, like any usage error. */
export class AdminInputError extends Error {
  override name = 'AdminInputError'
}

/** Well-formed input the database refuses (a name or e-mail address taken): a failure, exit 1. */
export class AdminConflictError extends Error {
  override name = 'AdminConflictError'
}

export function adminEngine(db: Database): EngineContext {
  // Admin commands never page, so their cursor key need not be the instance's.
  return { db, clock: Date.now, cursors: new CursorCodec(crypto.getRandomValues(new Uint8Array(32))) }
}

export function requireOrg(db: Database, org: string) {
  const found = findOrg(db, org)
  if (!found) throw new AdminInputError(`no organization ${JSON.stringify(org)} (give its id or exact name)`)
  return found
}

/** Creates a user who can log in, through the same rules (and event) as POST /users. */
export async function createUser(
  db: Database,
  input: { org: string; email: string; name: string; role: string; password: string },
): Promise<{ id: string; orgId: string }> {
  const org = requireOrg(db, input.org)
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new AdminInputError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`)
  }
  // argon2id via Bun.password; hashed before the write so the transaction stays short.
  const hash = await Bun.password.hash(input.password, { algorithm: 'argon2id' })
  try {
    const id = db.transaction(() => {
      const user = createRecord(adminEngine(db), systemPrincipal(org.id), users, {
        name: input.name,
        email: input.email,
        role: input.role,
      })
      setPasswordHash(db, user.id as string, hash)
      return user.id as string
    })()
    return { id, orgId: org.id }
  } catch (error) {
    if (error instanceof ApiError) {
      const reason = error.details.map((d) => `${d.field} ${d.message}`).join('; ') || error.message
      throw error.code === 'CONFLICT' ? new AdminConflictError(reason) : new AdminInputError(reason)
    }
    throw error
  }
}
