import type { OAuthContext } from '../oauth/context.ts'
import type { Html } from '../oauth/pages/html.ts'
import type { FormContext } from '../oauth/pages/pages.ts'
import type { LoginUser } from '../store/types.ts'

/**
 * A part of the `/account` page (docs/oauth.md, "The account page"): the authenticator app and
 * recovery codes, passkeys, linked providers. Each renders its section and handles the form
 * steps it owns; the page (server/account/) signs the user in, checks CSRF, and dispatches.
 */
export interface AccountSection {
  /** The `step` values of the forms this section renders (`totp-start`, `passkey-remove`, ...). */
  steps: readonly string[]
  render(ctx: OAuthContext, view: AccountView): Promise<Html>
  /** Handles one of its steps for the signed-in `user`; answers the page (usually a 303 back to /account). */
  handle(ctx: OAuthContext, request: Request, form: Map<string, string>, view: AccountView): Promise<Response>
}

export interface AccountView {
  user: LoginUser
  /** The account page's forms: action `/account`, the CSRF value, `request` the signed `next` (or empty). */
  form: FormContext
  /** Where to go on once a factor is enrolled (a sign-in that had to enrol first), if any. */
  next: string | null
  /** A one-time message for the page (after a change), from the query. */
  notice: string | null
}
