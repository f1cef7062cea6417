import { html } from '../oauth/pages/html.ts'
import { seeOther } from '../oauth/pages/layout.ts'
import { appendUserEvent } from '../oauth/sign-in.ts'
import { accountForm } from './account-forms.ts'
import { recoveryCodesPage } from './codes-page.ts'
import { issueRecoveryCodes } from './recovery-codes.ts'
import { type AccountSection, accountUrl } from './sections.ts'

/** The account page's `Recovery codes` section: how many are left, and new ones. */
export const recoverySection: AccountSection = {
  steps: ['recovery-renew'],

  async render(ctx, view) {
    const factors = await ctx.store.signIn.factorsOf(view.user.id)
    const body =
      factors.totp || factors.passkeys > 0
        ? html`<p>${factors.recoveryCodesLeft} of 10 recovery codes left. Each signs you in once when you cannot use your authenticator app or passkey.</p>
${accountForm(view, 'recovery-renew', html`<button type="submit">Make new recovery codes</button>`)}`
        : html`<p>Recovery codes come with your first authenticator app or passkey.</p>`
    return html`<section aria-labelledby="recovery-heading">
<h2 id="recovery-heading">Recovery codes</h2>
${body}
</section>`
  },

  async handle(ctx, _request, _form, view) {
    const factors = await ctx.store.signIn.factorsOf(view.user.id)
    // Codes without a factor would sign no one in: they come with the first factor.
    if (!factors.totp && factors.passkeys === 0) return seeOther(accountUrl(view))
    const codes = await issueRecoveryCodes(ctx, view.user.id)
    await appendUserEvent(ctx, view.user, 'recovery_codes_renewed', {})
    return recoveryCodesPage(view, codes, 'Your earlier recovery codes no longer work.')
  },
}
