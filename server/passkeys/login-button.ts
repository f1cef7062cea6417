import type { OAuthContext } from '../oauth/context.ts'
import { type Html, html } from '../oauth/pages/html.ts'
import type { SignInTarget } from '../oauth/sign-in.ts'

/** The login page's "Sign in with a passkey" button (a passkey signs in without a password). */
export function passkeyButton(_ctx: OAuthContext, _target: SignInTarget): Html {
  return html``
}
