import { appendUserEvent } from '../oauth/sign-in.ts'
import type { Tx } from '../store/store.ts'
import { UsageError } from './arguments.ts'
import { AdminInputError, requireOrg } from './users.ts'

type SecondFactorPolicy = Parameters<Tx['signIn']['setPolicy']>[1]

const POLICIES: readonly SecondFactorPolicy[] = ['admins', 'all', 'none']

/** `--require-2fa` as typed: one of the policies, or a usage error naming them (exit 2). */
export function parsePolicy(value: string | undefined): SecondFactorPolicy {
  if (value === undefined || value === '')
    throw new UsageError(`--require-2fa is required (one of: ${POLICIES.join(', ')})`)
  const policy = POLICIES.find((p) => p === value)
  if (!policy) throw new UsageError(`--require-2fa must be one of: ${POLICIES.join(', ')} (got "${value}")`)
  return policy
}

/** `org update ORG --require-2fa P`: sets the organization's second-factor policy. */
export async function updateOrgPolicy(
  store: Tx,
  orgRef: string,
  policy: SecondFactorPolicy,
): Promise<{ id: string; name: string; require2fa: SecondFactorPolicy }> {
  const org = await requireOrg(store, orgRef)
  await store.signIn.setPolicy(org.id, policy)
  return { id: org.id, name: org.name, require2fa: policy }
}

/** What a reset removed: whether there was TOTP, how many passkeys and unused recovery codes. */
interface ResetOutcome {
  id: string
  email: string
  removed: { totp: boolean; passkeys: number; recoveryCodes: number }
}

/**
 * `user reset-2fa --org ORG --email E`, for a user who lost every factor: removes their TOTP,
 * recovery codes and passkeys and appends `user.mfa_reset` (actor api-server) in one transaction.
 * A user with nothing to remove gets no event.
 */
export async function resetSecondFactors(
  store: Tx,
  input: { org: string; email: string },
): Promise<ResetOutcome> {
  const org = await requireOrg(store, input.org)
  const [user] = await store.users.byEmail(input.email, org.id)
  if (!user)
    throw new AdminInputError(`no user ${input.email} in ${org.name} (user list --org ORG shows them)`)
  return store.transaction(async (tx) => {
    const factors = await tx.signIn.factorsOf(user.id)
    const removed = {
      totp: factors.totp,
      passkeys: factors.passkeys,
      recoveryCodes: factors.recoveryCodesLeft,
    }
    // An unconfirmed TOTP enrolment is no factor (and no event), but it goes too.
    await tx.signIn.resetFactors(user.id)
    if (removed.totp || removed.passkeys > 0 || removed.recoveryCodes > 0) {
      await appendUserEvent({ store: tx, clock: Date.now }, user, 'mfa_reset', removed, {
        type: 'system',
        id: 'api-server',
      })
    }
    return { id: user.id, email: user.email, removed }
  })
}

/** The sentence `user reset-2fa` prints. */
export function resetSentence(outcome: ResetOutcome): string {
  const { totp, passkeys, recoveryCodes } = outcome.removed
  const parts = [
    ...(totp ? ['the authenticator app'] : []),
    ...(passkeys > 0 ? [`${passkeys} passkey${passkeys === 1 ? '' : 's'}`] : []),
    ...(recoveryCodes > 0 ? [`${recoveryCodes} recovery code${recoveryCodes === 1 ? '' : 's'}`] : []),
  ]
  if (parts.length === 0) return `${outcome.email} has no second factor: nothing to reset (${outcome.id})`
  const list = parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`
  return `removed ${list} of ${outcome.email} (${outcome.id}); they sign in with their password alone until they enrol again`
}
