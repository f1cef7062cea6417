import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { accountForm, fieldError } from '../account/account-forms.ts'
import { recoveryCodesPage } from '../account/codes-page.ts'
import { FACTOR_REQUIRED } from '../account/notices.ts'
import { issueRecoveryCodes } from '../account/recovery-codes.ts'
import { type AccountSection, type AccountView, accountUrl } from '../account/sections.ts'
import type { OAuthContext } from '../oauth/context.ts'
import { type Html, hidden, html } from '../oauth/pages/html.ts'
import { seeOther } from '../oauth/pages/layout.ts'
import { isLastRequiredFactor } from '../oauth/second-factor-policy.ts'
import { appendUserEvent } from '../oauth/sign-in.ts'
import type { PasskeyRow } from './assertion.ts'
import { readRegistration } from './credential-fields.ts'
import { passkeyForm } from './passkey-form.ts'
import { PASSKEY_ALGORITHMS } from './public-key.ts'
import { PasskeyRefused, refusalMessage } from './refusal.ts'
import { verifyRegistration } from './registration.ts'
import { issueChallenge, passkeysUnavailable, relyingParty } from './relying-party.ts'

const MAX_NAME = 60
// The notices this section shows itself (the page's `notice` keys starting `passkey-`).
const DONE: Record<string, string> = {
  'passkey-added': 'Your passkey is added.',
  'passkey-removed': 'The passkey was removed.',
}
const NAME_WRONG = 'passkey-name'

/** The name a person gave a passkey: trimmed, 1 to 60 characters, no control characters. */
export function passkeyName(input: string | undefined): string | null {
  const name = (input ?? '').trim()
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  return name.length > 0 && name.length <= MAX_NAME && !/[\u0000-\u001f\u007f-\u009f]/.test(name)
    ? name
    : null
}

/** The section's error for the page's notice, if it is one of its own. */
function errorOf(notice: string | null): string | null {
  if (notice === NAME_WRONG) return `Give the passkey a name of 1 to ${MAX_NAME} characters.`
  if (!notice?.startsWith('passkey-refused-')) return null
  return refusalMessage(notice.slice('passkey-refused-'.length))
}

const day = (iso: string | null) => (iso ? html`<time datetime="${iso}">${iso.slice(0, 10)}</time>` : 'never')

function listed(view: AccountView, passkey: PasskeyRow): Html {
  return html`<li><strong>${passkey.name}</strong> <span class="small">added ${day(passkey.createdAt)}, last used ${day(passkey.lastUsedAt)}</span>
${accountForm(view, 'passkey-remove', html`${hidden('passkey', passkey.id)}<button type="submit">Remove ${passkey.name}</button>`)}</li>`
}

async function addForm(ctx: OAuthContext, view: AccountView, passkeys: PasskeyRow[]): Promise<Html> {
  const { user } = view
  const unavailable = passkeysUnavailable(ctx.issuer)
  if (unavailable) return html`<p class="hint" id="passkeys-unavailable">${unavailable}</p>`
  const error = errorOf(view.notice)
  const challenge = await issueChallenge(ctx, 'register', user.id)
  return passkeyForm({
    id: 'passkey-add',
    action: view.form.action,
    mode: 'create',
    options: {
      challenge,
      rpId: relyingParty(ctx.issuer).id,
      rpName: 'api-service',
      user: {
        id: encodeBase64urlNoPadding(new TextEncoder().encode(user.id)),
        name: user.email,
        displayName: user.name,
      },
      exclude: passkeys.map((p) => p.id),
      algorithms: PASSKEY_ALGORITHMS,
    },
    fields: { step: 'passkey-add', csrf: view.form.csrf },
    before: html`<label for="passkey-name">Passkey name</label>
${fieldError('passkey-name-error', error)}
<input id="passkey-name" name="name" type="text" required maxlength="${MAX_NAME}" autocomplete="off" placeholder="This laptop"${error ? html` aria-describedby="passkey-name-error" aria-invalid="true"` : html``}>`,
    button: 'Add a passkey',
  })
}

/** The account page's `Passkeys` section: the passkeys (name, added, last used), add one, remove one. */
export const passkeySection: AccountSection = {
  steps: ['passkey-add', 'passkey-remove'],

  async render(ctx, view) {
    const passkeys = await ctx.store.signIn.passkeysOf(view.user.id)
    const done = view.notice ? DONE[view.notice] : undefined
    return html`<section aria-labelledby="passkeys-heading">
<h2 id="passkeys-heading">Passkeys</h2>
${done ? html`<p role="status">${done}</p>` : html``}
<p>A passkey signs you in without a password, with your device's screen lock, and can be your second step after a password.</p>
${passkeys.length > 0 ? html`<ul aria-label="Your passkeys">${passkeys.map((p) => listed(view, p))}</ul>` : html`<p>You have no passkey yet.</p>`}
${await addForm(ctx, view, passkeys)}
</section>`
  },

  async handle(ctx, _request, form, view) {
    const { user } = view
    if (form.get('step') === 'passkey-remove') {
      if (await isLastRequiredFactor(ctx, user)) return seeOther(accountUrl(view, FACTOR_REQUIRED))
      const passkey = (await ctx.store.signIn.passkeysOf(user.id)).find((p) => p.id === form.get('passkey'))
      if (passkey && (await ctx.store.signIn.removePasskey(user.id, passkey.id)))
        await appendUserEvent(ctx, user, 'mfa_removed', { factor: 'passkey', name: passkey.name })
      return seeOther(accountUrl(view, 'passkey-removed'))
    }
    const name = passkeyName(form.get('name'))
    if (name === null) return seeOther(accountUrl(view, NAME_WRONG))
    const before = await ctx.store.signIn.factorsOf(user.id)
    try {
      const passkey = await verifyRegistration(ctx, user.id, readRegistration(form))
      await ctx.store.signIn.addPasskey({ ...passkey, userId: user.id, name }, ctx.clock())
    } catch (error) {
      if (error instanceof PasskeyRefused)
        return seeOther(accountUrl(view, `passkey-refused-${error.problem}`))
      throw error
    }
    await appendUserEvent(ctx, user, 'mfa_enrolled', { factor: 'passkey', name })
    // Recovery codes come with the first second factor; an authenticator app enrolled before made them.
    if ((before.totp || before.passkeys > 0) && before.recoveryCodesLeft > 0)
      return seeOther(accountUrl(view, 'passkey-added'))
    const codes = await issueRecoveryCodes(ctx, user.id)
    return recoveryCodesPage(view, codes, 'Your passkey is added.')
  },
}
