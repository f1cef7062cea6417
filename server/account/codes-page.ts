import { html } from '../oauth/pages/html.ts'
import { pageResponse } from '../oauth/pages/layout.ts'
import { type AccountView, accountUrl } from './sections.ts'

/**
 * The new recovery codes, shown this once (only their hashes are kept), as the answer to the
 * form that made them: a redirect would have to carry them in a URL or a cookie.
 */
export function recoveryCodesPage(view: AccountView, codes: readonly string[], lead: string): Response {
  return pageResponse({
    title: 'Your recovery codes',
    body: html`<h1>Save your recovery codes</h1>
<p>${lead}</p>
<p>If you lose your authenticator, each of these codes signs you in once. Keep them somewhere safe: they are not shown again.</p>
<ul aria-label="Your recovery codes" class="scopes">${codes.map((c) => html`<li>${c}</li>`)}</ul>
<p><a href="${accountUrl(view)}">Back to your account</a></p>`,
  })
}
