import { type Html, hidden, html } from '../oauth/pages/html.ts'
import type { AccountView } from './sections.ts'

/** One of the account page's forms: posts `step` (and the CSRF value) to the page. */
export const accountForm = (view: AccountView, step: string, content: Html) =>
  html`<form method="post" action="${view.form.action}">
${hidden('step', step)}${hidden('csrf', view.form.csrf)}
${content}
</form>`

/** A field's error, tied to it by `aria-describedby="{id}"`. */
export const fieldError = (id: string, message: string | null) =>
  message ? html`<p class="error" id="${id}" role="alert">${message}</p>` : html``
