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
  /**
   * Handles one of its steps for the signed-in `user`; answers the page (usually a 303 back to
   * `accountUrl(view, notice)`; a 303 to `/account` gets the page's `next` added).
   */
  handle(ctx: OAuthContext, request: Request, form: Map<string, string>, view: AccountView): Promise<Response>
}

export interface AccountView {
  user: LoginUser
  /** The account page's forms: action `/account` (with `?next=`), the CSRF value, `request` empty. */
  form: FormContext
  /** Where to go on once a factor is enrolled (a sign-in that had to enrol first), if any. */
  next: string | null
  /**
   * The one-time `notice` of the query after a change: a key (`totp-enrolled`, `totp-code-wrong`),
   * never free text, so no link can make the page say something of its choosing. The page shows
   * the messages of server/account/notices.ts; a section shows its own errors by its field.
   */
  notice: string | null
}

/** `/account`, keeping the page's `next`, with an optional notice key. */
export function accountUrl(view: Pick<AccountView, 'next'>, notice?: string): string {
  const params = new URLSearchParams()
  if (view.next) params.set('next', view.next)
  if (notice) params.set('notice', notice)
  const query = params.toString()
  return query ? `/account?${query}` : '/account'
}
