import { encodeBase32NoPadding } from '@oslojs/encoding'
import { renderSVG } from 'uqr'
import type { OAuthContext } from '../oauth/context.ts'
import { type Html, html } from '../oauth/pages/html.ts'
import { seeOther } from '../oauth/pages/layout.ts'
import { isLastRequiredFactor } from '../oauth/second-factor-policy.ts'
import { appendUserEvent } from '../oauth/sign-in.ts'
import { accountForm, fieldError } from './account-forms.ts'
import { recoveryCodesPage } from './codes-page.ts'
import { FACTOR_REQUIRED } from './notices.ts'
import { issueRecoveryCodes } from './recovery-codes.ts'
import { type AccountSection, type AccountView, accountUrl } from './sections.ts'
import { checkTotpCode, newTotpSecret, totpKeyUri, unsealTotpSecret } from './totp.ts'

const WRONG_CODE = 'totp-code-wrong'

/** The key as people type it: base32 in groups of four. */
const groupedKey = (key: Uint8Array) =>
  encodeBase32NoPadding(key)
    .match(/.{1,4}/g)!
    .join(' ')

async function enrolment(ctx: OAuthContext, view: AccountView, sealed: string): Promise<Html> {
  const key = await unsealTotpSecret(ctx, sealed)
  const svg = renderSVG(totpKeyUri(ctx.issuer, view.user.email, key), { pixelSize: 4 })
  const wrong = view.notice === WRONG_CODE
  return html`<p>Scan this QR code with your authenticator app, or type the key into it. Then enter the code it shows.</p>
<img alt="QR code for your authenticator app" width="200" height="200" src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}">
<p>Key: <code id="totp-key">${groupedKey(key)}</code></p>
${accountForm(
  view,
  'totp-confirm',
  html`<label for="totp-code">Code from the app</label>
${fieldError('totp-code-error', wrong ? 'That code is not right. Check the app and enter the code it shows now.' : null)}
<input id="totp-code" name="code" type="text" class="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="16"${wrong ? html` aria-describedby="totp-code-error" aria-invalid="true" autofocus` : html``}>
<div class="actions"><button type="submit" class="primary">Confirm</button></div>`,
)}`
}

/** The account page's `Authenticator app` section: set up (QR code, key, confirmation), remove. */
export const totpSection: AccountSection = {
  steps: ['totp-start', 'totp-confirm', 'totp-remove'],

  async render(ctx, view) {
    const row = await ctx.store.signIn.totpOf(view.user.id)
    const body =
      row?.confirmedAt != null
        ? html`<p>Your authenticator app is set up: signing in asks for its code.</p>
${accountForm(view, 'totp-remove', html`<button type="submit">Remove the authenticator app</button>`)}`
        : row
          ? await enrolment(ctx, view, row.sealedSecret)
          : html`<p>Use an app on your phone that makes a new code every 30 seconds as a second step after your password.</p>
${accountForm(view, 'totp-start', html`<button type="submit" class="primary">Set up an authenticator app</button>`)}`
    return html`<section aria-labelledby="totp-heading">
<h2 id="totp-heading">Authenticator app</h2>
${body}
</section>`
  },

  async handle(ctx, _request, form, view) {
    const { user } = view
    switch (form.get('step')) {
      case 'totp-start': {
        const { sealed } = await newTotpSecret(ctx)
        await ctx.store.signIn.startTotp(user.id, sealed, ctx.clock())
        return seeOther(accountUrl(view))
      }
      case 'totp-confirm': {
        const row = await ctx.store.signIn.totpOf(user.id)
        if (!row || row.confirmedAt !== null) return seeOther(accountUrl(view))
        if (!(await checkTotpCode(ctx, user.id, form.get('code') ?? '', true)))
          return seeOther(accountUrl(view, WRONG_CODE))
        await appendUserEvent(ctx, user, 'mfa_enrolled', { factor: 'totp' })
        const factors = await ctx.store.signIn.factorsOf(user.id)
        // Recovery codes come with the first factor; a passkey enrolled before made them already.
        if (factors.passkeys > 0 && factors.recoveryCodesLeft > 0)
          return seeOther(accountUrl(view, 'totp-enrolled'))
        const codes = await issueRecoveryCodes(ctx, user.id)
        return recoveryCodesPage(view, codes, 'Your authenticator app is set up.')
      }
      case 'totp-remove': {
        if (await isLastRequiredFactor(ctx, user)) return seeOther(accountUrl(view, FACTOR_REQUIRED))
        if (await ctx.store.signIn.removeTotp(user.id))
          await appendUserEvent(ctx, user, 'mfa_removed', { factor: 'totp' })
        return seeOther(accountUrl(view, 'totp-removed'))
      }
    }
    return seeOther(accountUrl(view))
  },
}
