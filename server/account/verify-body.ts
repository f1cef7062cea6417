import { type Html, hidden, html } from '../oauth/pages/html.ts'

export interface VerifyView {
  csrf: string
  /** The user has a confirmed authenticator app (else only a recovery code or a passkey helps). */
  totp: boolean
  /** Which form failed, and why: its field is tied to the message. */
  error?: { field: 'code' | 'recovery' | 'passkey'; message: string }
  /** The `Use a passkey` option (server/passkeys/verify-option.ts), empty without a passkey. */
  passkeyOption: Html
}

const errorText = (view: VerifyView, field: string) =>
  view.error?.field === field
    ? html`<p class="error" id="${field}-error" role="alert">${view.error.message}</p>`
    : html``

const describedBy = (view: VerifyView, field: string) =>
  view.error?.field === field ? html` aria-describedby="${field}-error" aria-invalid="true"` : html``

/** `/login/verify`: an authenticator app's code, a recovery code, or a passkey. */
export function verifyBody(view: VerifyView): Html {
  const app = view.totp
    ? html`<p>Enter the code your authenticator app shows for this account.</p>
<form method="post" action="/login/verify">
${hidden('step', 'totp')}${hidden('csrf', view.csrf)}
<label for="code">Authentication code</label>
${errorText(view, 'code')}
<input id="code" name="code" type="text" class="code" inputmode="numeric" autocomplete="one-time-code" required autofocus maxlength="16" spellcheck="false"${describedBy(view, 'code')}>
<div class="actions"><button type="submit" class="primary">Verify</button></div>
</form>`
    : html`<p>Use your passkey, or one of your recovery codes.</p>`
  return html`<h1>Two-step verification</h1>
${app}
<form method="post" action="/login/verify">
${hidden('step', 'recovery')}${hidden('csrf', view.csrf)}
<label for="recovery">Recovery code</label>
${errorText(view, 'recovery')}
<input id="recovery" name="recovery_code" type="text" autocomplete="off" required maxlength="32" spellcheck="false"${describedBy(view, 'recovery')}>
<p class="hint">Lost your phone? Each recovery code works once.</p>
<div class="actions"><button type="submit">Use a recovery code</button></div>
</form>
${errorText(view, 'passkey')}
${view.passkeyOption}`
}

/** The sign-in waited too long for its second factor, or the pending cookie is gone. */
export const expiredBody = () => html`<h1>Sign-in expired</h1>
<p>This sign-in took too long or was already finished. Sign in again.</p>
<p><a href="/account">Start again</a></p>`
