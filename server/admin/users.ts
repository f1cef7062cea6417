import { ApiError } from '../../shared/errors.ts'
import { users } from '../../shared/resources/users.ts'
import type { EngineContext } from '../resources/context.ts'
import { CursorCodec } from '../resources/cursor.ts'
import { prepareCreate } from '../resources/writes.ts'
import type { Tx } from '../store/store.ts'
import { systemPrincipal } from './system.ts'

const MIN_PASSWORD_LENGTH = 8

/** Input an admin command cannot use; the command line exits 2 for it, like any usage error. */
export class AdminInputError extends Error {
  override name = 'AdminInputError'
}

/** Well-formed input the database refuses (a name or e-mail address taken): a failure, exit 1. */
export class AdminConflictError extends Error {
  override name = 'AdminConflictError'
}

export function adminEngine(store: Tx): EngineContext {
  // Admin commands never page, so their cursor key need not be the instance's.
  return {
    store,
    schema: store.schema,
    clock: Date.now,
    cursors: new CursorCodec(crypto.getRandomValues(new Uint8Array(32))),
  }
}

export async function requireOrg(store: Tx, org: string) {
  const found = await store.orgs.find(org)
  if (!found) throw new AdminInputError(`no organization ${JSON.stringify(org)} (give its id or exact name)`)
  return found
}

/** The password's argon2id hash (Bun.password), once it is long enough. */
async function passwordHash(password: string): Promise<string> {
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new AdminInputError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`)
  return Bun.password.hash(password, { algorithm: 'argon2id' })
}

/** Creates a user who can log in, through the same rules (and event) as POST /users. */
export async function createUser(
  store: Tx,
  input: { org: string; email: string; name: string; role: string; password: string },
): Promise<{ id: string; orgId: string }> {
  const org = await requireOrg(store, input.org)
  // Hashed before the write so the transaction stays short.
  const hash = await passwordHash(input.password)
  try {
    const body = { name: input.name, email: input.email, role: input.role }
    const write = prepareCreate(adminEngine(store), systemPrincipal(store.schema, org.id), users, body)
    await write.check()
    // One transaction: the user's record, its event and its password.
    const id = await store.transaction(async (tx) => {
      const user = await write.apply(adminEngine(tx))
      await tx.users.setPasswordHash(user.id as string, hash)
      return user.id as string
    })
    return { id, orgId: org.id }
  } catch (error) {
    if (error instanceof ApiError) {
      const reason = error.details.map((d) => `${d.field} ${d.message}`).join('; ') || error.message
      throw error.code === 'CONFLICT' ? new AdminConflictError(reason) : new AdminInputError(reason)
    }
    throw error
  }
}

/**
 * Sets the password of the organization's user with this e-mail address (any case), replacing
 * any they had. Their sign-ins so far stay valid.
 */
export async function setPassword(
  store: Tx,
  input: { org: string; email: string; password: string },
): Promise<{ id: string; email: string }> {
  const org = await requireOrg(store, input.org)
  const [user] = await store.users.byEmail(input.email, org.id)
  if (!user)
    throw new AdminInputError(`no user ${input.email} in ${org.name} (user list --org ORG shows them)`)
  await store.users.setPasswordHash(user.id, await passwordHash(input.password))
  return { id: user.id, email: user.email }
}
