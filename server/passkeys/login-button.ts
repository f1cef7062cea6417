import type { OAuthContext } from '../oauth/context.ts'
import { type Html, html } from '../oauth/pages/html.ts'
import { type SignInTarget, signSignInTarget } from '../oauth/sign-in.ts'
import { passkeyForm } from './passkey-form.ts'
import { issueChallenge, passkeysUnavailable, relyingParty } from './relying-party.ts'

/** Where the login page's passkey form posts (server/passkeys/login-route.ts). */
export const PASSKEY_LOGIN_PATH = '/login/passkey'

/**
 * The login page's "Sign in with a passkey" button (a passkey signs in without a password): a
 * discoverable credential, so no list of credentials is sent and the authenticator offers its
 * passkeys for this site; user verification required. Each page gets its own challenge.
 */
export async function passkeyButton(ctx: OAuthContext, target: SignInTarget, csrf: string): Promise<Html> {
  if (passkeysUnavailable(ctx.issuer)) return html``
  const challenge = await issueChallenge(ctx, 'sign-in', null)
  return passkeyForm({
    id: 'passkey-login',
    action: PASSKEY_LOGIN_PATH,
    mode: 'get',
    options: { challenge, rpId: relyingParty(ctx.issuer).id },
    fields: { csrf, target: signSignInTarget(ctx, target) },
    button: 'Sign in with a passkey',
  })
}
