import { type Html, hidden, html } from '../oauth/pages/html.ts'

interface PasskeyFormOptions {
  action: string
  /** `get` signs in with a passkey (an assertion), `create` adds one (a registration). */
  mode: 'get' | 'create'
  /** What the script hands `navigator.credentials` (binary values base64url). */
  options: Record<string, unknown>
  /** The form's own hidden fields (step, CSRF, the signed target). */
  fields: Record<string, string>
  button: string
  /** Fields the person fills before the button (the passkey's name). */
  before?: Html
  /** A distinct id prefix when a page has more than one passkey form. */
  id: string
}

// The answer the script fills in: the assertion's, or the registration's.
const ANSWER_FIELDS = {
  get: ['credential_id', 'client_data_json', 'authenticator_data', 'signature', 'user_handle'],
  create: ['client_data_json', 'attestation_object'],
} as const

/**
 * A form the passkey script (/login/passkey.js) drives: on submit it asks the browser for the
 * passkey, fills the answer's fields and posts. Without JavaScript the `noscript` hint says why
 * the button cannot work here, and the server explains it again if the form is posted empty.
 */
export function passkeyForm(form: PasskeyFormOptions): Html {
  const alertId = `${form.id}-alert`
  return html`<form method="post" action="${form.action}" data-passkey="${form.mode}" data-passkey-options="${JSON.stringify(form.options)}">
${Object.entries(form.fields).map(([name, value]) => hidden(name, value))}${ANSWER_FIELDS[form.mode].map((name) => hidden(name, ''))}
${form.before ?? html``}
<p class="error" id="${alertId}" role="alert" data-passkey-alert hidden></p>
<noscript><p class="hint">Passkeys need JavaScript, which is off in this browser.</p></noscript>
<div class="actions"><button type="submit" aria-describedby="${alertId}">${form.button}</button></div>
</form>`
}
