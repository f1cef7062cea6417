import type { OAuthContext } from '../oauth/context.ts'
import { type Html, html } from '../oauth/pages/html.ts'
import type { LoginUser } from '../store/types.ts'
import { verifyAssertion } from './assertion.ts'
import { readAssertion } from './credential-fields.ts'
import { passkeyForm } from './passkey-form.ts'
import { PasskeyRefused } from './refusal.ts'
import { issueChallenge, passkeysUnavailable, relyingParty } from './relying-party.ts'

/**
 * The second-factor page's `Use a passkey` button, for a user with a passkey (empty otherwise):
 * the browser is offered only this user's passkeys (`allowCredentials`), against a challenge bound
 * to the user. The form posts `step=passkey` to `/login/verify`.
 */
export async function passkeyVerifyOption(ctx: OAuthContext, user: LoginUser, csrf: string): Promise<Html> {
  const passkeys = await ctx.store.signIn.passkeysOf(user.id)
  if (passkeys.length === 0 || passkeysUnavailable(ctx.issuer)) return html``
  const challenge = await issueChallenge(ctx, 'second-factor', user.id)
  return passkeyForm({
    id: 'passkey-verify',
    action: '/login/verify',
    mode: 'get',
    options: { challenge, rpId: relyingParty(ctx.issuer).id, allow: passkeys.map((p) => p.id) },
    fields: { step: 'passkey', csrf },
    button: 'Use a passkey',
  })
}

/**
 * Checks a passkey assertion posted from the second-factor page for `user`: true when it is a
 * valid assertion of one of the user's passkeys (challenge issued to this user, origin, user
 * verification, signature, counter), which is then recorded as used.
 */
export async function verifyPasskeyAsSecondFactor(
  ctx: OAuthContext,
  user: LoginUser,
  form: Map<string, string>,
): Promise<boolean> {
  try {
    await verifyAssertion(ctx, readAssertion(form), 'second-factor', user.id)
    return true
  } catch (error) {
    if (error instanceof PasskeyRefused) return false
    throw error
  }
}
