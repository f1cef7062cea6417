import { type Html, html } from '../oauth/pages/html.ts'
import { accountForm } from './account-forms.ts'
import { ACCOUNT_NOTICES } from './notices.ts'
import type { AccountView } from './sections.ts'

interface PolicyState {
  /** The organization requires a second factor of this user. */
  required: boolean
  hasFactor: boolean
}

function policyNotice(view: AccountView, policy: PolicyState): Html {
  const lacking = policy.required && !policy.hasFactor
  const alert = lacking
    ? html`<p class="error" role="alert">Your organization requires a second factor. Set up an authenticator app or a passkey below to continue.</p>`
    : html``
  const next = view.next && !lacking ? html`<p><a href="${view.next}">Continue</a></p>` : html``
  return html`${alert}${next}`
}

/** `/account` for a signed-in user: who, the policy's alert, the sections, `Sign out`. */
export function accountBody(view: AccountView, policy: PolicyState, sections: Html[]): Html {
  const { user } = view
  const notice = view.notice ? ACCOUNT_NOTICES[view.notice] : undefined
  return html`<h1>Your account</h1>
${notice ? html`<p role="status">${notice}</p>` : html``}
${policyNotice(view, policy)}
<dl>
<dt>Name</dt><dd>${user.name}</dd>
<dt>E-mail</dt><dd>${user.email}</dd>
<dt>Organization</dt><dd>${user.orgName}</dd>
<dt>Role</dt><dd>${user.role}</dd>
</dl>
${sections}
${accountForm(view, 'sign-out', html`<div class="actions"><button type="submit">Sign out</button></div>`)}`
}
