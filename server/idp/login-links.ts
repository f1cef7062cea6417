import type { OAuthContext } from '../oauth/context.ts'
import { type Html, html } from '../oauth/pages/html.ts'
import type { SignInTarget } from '../oauth/sign-in.ts'

/** The login page's link per outside identity provider ("Sign in with Corp SSO"); none without `--idp`. */
export function providerLinks(_ctx: OAuthContext, _target: SignInTarget): Html {
  return html``
}
