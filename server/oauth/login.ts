import type { LoginUser } from '../store/types.ts'
import type { OAuthContext } from './context.ts'

type LoginOutcome =
  | { kind: 'ok'; user: LoginUser }
  /** The same e-mail and password open accounts in several organizations. */
  | { kind: 'choose'; users: LoginUser[] }
  | { kind: 'failed' }
  | { kind: 'limited'; retryAfter: number }

let dummyHash: Promise<string> | null = null

/** An argon2id hash of nothing anyone knows, verified when the e-mail is unknown so that timing does not tell. */
function dummy(): Promise<string> {
  dummyHash ??= Bun.password.hash(crypto.randomUUID(), { algorithm: 'argon2id' })
  return dummyHash
}

/**
 * Checks an e-mail and password (argon2id through Bun.password). Failures count against the
 * account (the e-mail as typed, lower-cased) and the client address; past either limit the
 * check is not even made. `orgId` restricts the accounts to one organization (a client
 * registered to one).
 */
export async function checkLogin(
  ctx: OAuthContext,
  address: string,
  email: string,
  password: string,
  orgId: string | null,
): Promise<LoginOutcome> {
  const account = email.trim().toLowerCase()
  const { loginPerAccount, loginPerAddress } = ctx.limits
  const retryAfter = Math.max(
    await loginPerAccount.retryAfter(account),
    await loginPerAddress.retryAfter(address),
  )
  if (retryAfter > 0) return { kind: 'limited', retryAfter }
  const candidates = account === '' ? [] : await ctx.store.users.byEmail(account, orgId)
  const matches: LoginUser[] = []
  for (const user of candidates) {
    if (await Bun.password.verify(password, user.passwordHash ?? (await dummy()))) {
      if (user.passwordHash !== null) matches.push(user)
    }
  }
  if (candidates.length === 0) await Bun.password.verify(password, await dummy())
  if (matches.length === 0) {
    await loginPerAccount.fail(account)
    await loginPerAddress.fail(address)
    return { kind: 'failed' }
  }
  await loginPerAccount.reset(account)
  return matches.length === 1 ? { kind: 'ok', user: matches[0]! } : { kind: 'choose', users: matches }
}
