import type { OAuthContext } from '../oauth/context.ts'
import { type Html, html } from '../oauth/pages/html.ts'
import type { LoginUser } from '../store/types.ts'

/**
 * The second-factor page's `Use a passkey` button, for a user with a passkey. The page
 * (server/account/verify-page.ts) renders it and hands it the POST steps in `passkeyVerifySteps`.
 */
export async function passkeyVerifyOption(
  _ctx: OAuthContext,
  _user: LoginUser,
  _csrf: string,
): Promise<Html> {
  return html``
}

/**
 * Checks a passkey assertion posted from the second-factor page for `user`: true when it is a
 * valid assertion of one of the user's passkeys (challenge, origin, counter, signature).
 */
export async function verifyPasskeyAsSecondFactor(
  _ctx: OAuthContext,
  _user: LoginUser,
  _form: Map<string, string>,
): Promise<boolean> {
  return false
}
