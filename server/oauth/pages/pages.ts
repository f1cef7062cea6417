import { formatUserCode } from '../random.ts'
import { type Html, hidden, html } from './html.ts'
import { scopeWords } from './scope-words.ts'

/** What every form of an interaction posts back: where, which step's signed request, the CSRF value. */
export interface FormContext {
  action: string
  request: string
  csrf: string
}

const formFields = (form: FormContext, step: string) =>
  html`${hidden('step', step)}${hidden('request', form.request)}${hidden('csrf', form.csrf)}`

function errorBox(id: string, message: string | undefined): Html {
  return message ? html`<p class="error" id="${id}" role="alert">${message}</p>` : html``
}

/** Asks for e-mail and password; `purpose` says who asks and why ("api command-line client wants access"). */
export function loginBody(
  form: FormContext,
  purpose: Html,
  email = '',
  error?: string,
  /** Other ways to sign in (outside providers, a passkey), shown after the password form. */
  alternatives: Html = html``,
): Html {
  const described = error ? html` aria-describedby="login-error" aria-invalid="true"` : html``
  return html`<h1>Sign in</h1>
<p>${purpose}</p>
${errorBox('login-error', error)}
<form method="post" action="${form.action}">
${formFields(form, 'login')}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${email}"${described}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${described}>
<div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
${alternatives}`
}

/** The same e-mail and password fit accounts in several organizations: the person picks one. */
export function chooseAccountBody(
  form: FormContext,
  accounts: { id: string; orgName: string; role: string }[],
  /** The signed list of the accounts the password opened. */
  accountsToken: string,
): Html {
  return html`<h1>Choose an organization</h1>
<p>Your e-mail address has an account in more than one organization. Which one do you want to use?</p>
<form method="post" action="${form.action}">
${formFields(form, 'choose')}${hidden('accounts', accountsToken)}
<fieldset>
<legend>Organization</legend>
${accounts.map(
  (a, i) =>
    html`<label class="choice" for="account-${i}"><input type="radio" id="account-${i}" name="account" value="${a.id}" required${i === 0 ? html` autofocus` : html``}> ${a.orgName} (${a.role})</label>`,
)}
</fieldset>
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>`
}

interface ConsentView {
  clientName: string
  user: { name: string; email: string; orgName: string; role: string }
  scopes: string[]
  /** Asked for, but more than the user's role allows. */
  withheld: string[]
  /** Where the browser goes next (the client's redirect URI), or the device's user code. */
  returnTo?: string
  userCode?: string
}

export function consentBody(form: FormContext, view: ConsentView): Html {
  const returnHost = view.returnTo ? new URL(view.returnTo).host : ''
  return html`<h1>Allow access?</h1>
${view.userCode ? html`<p>Check that this code is the one your device shows: <strong class="code">${formatUserCode(view.userCode)}</strong></p>` : html``}
<p><strong>${view.clientName}</strong> asks to act for you, ${view.user.name} (${view.user.email}), in ${view.user.orgName}. It will be able to:</p>
<ul class="scopes">${view.scopes.map((s) => html`<li>${scopeWords(s)} <span class="small">(${s})</span></li>`)}</ul>
${
  view.withheld.length > 0
    ? html`<p class="small">It also asked for more than your role (${view.user.role}) allows; it will not get: ${view.withheld.map(scopeWords).join('; ')}.</p>`
    : html``
}
${returnHost ? html`<p class="small">Either way you go back to ${returnHost}.</p>` : html``}
<form method="post" action="${form.action}">
${formFields(form, 'consent')}
<div class="actions">
<button type="submit" name="decision" value="allow" class="primary" autofocus>Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>
<form method="post" action="${form.action}">
${formFields(form, 'switch')}
<button type="submit" class="link">Not ${view.user.email}? Use another account</button>
</form>`
}

/** The device page's first step: the user code, typed or prefilled from verification_uri_complete. */
export function userCodeBody(csrf: string, userCode = '', error?: string): Html {
  const described = error ? html`code-hint code-error` : html`code-hint`
  return html`<h1>Connect a device</h1>
<p>Enter the code your device shows. ${userCode ? html`Check that it matches the code on your device before you continue.` : html``}</p>
${errorBox('code-error', error)}
<form method="post" action="/device">
${hidden('step', 'code')}${hidden('csrf', csrf)}
<label for="user_code">Code</label>
<input id="user_code" name="user_code" type="text" class="code" required autofocus autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="16" value="${userCode}" aria-describedby="${described}"${error ? html` aria-invalid="true"` : html``}>
<p class="hint" id="code-hint">8 letters, for example BDFG-HJKL. Dashes, spaces and case do not matter.</p>
<div class="actions"><button type="submit" class="primary">Continue</button></div>
</form>`
}

/** A page that only tells something (an error, or that the device flow is finished). */
export function messageBody(title: string, message: string, detail?: string): Html {
  return html`<h1>${title}</h1>
<p>${message}</p>
${detail ? html`<p class="small">${detail}</p>` : html``}`
}
