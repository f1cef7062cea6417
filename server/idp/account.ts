import { accountForm } from '../account/account-forms.ts'
import { type AccountSection, accountUrl } from '../account/sections.ts'
import { hidden, html } from '../oauth/pages/html.ts'
import { seeOther } from '../oauth/pages/layout.ts'
import { appendUserEvent } from '../oauth/sign-in.ts'

/** The account page's `Sign-in providers` section: link or unlink an outside identity. */
export const identitySection: AccountSection = {
  steps: ['identity-unlink'],

  async render(ctx, view) {
    if (ctx.idp.size === 0) return html``
    const linked = new Set((await ctx.store.signIn.identitiesOf(view.user.id)).map((i) => i.provider))
    const rows = [...ctx.idp.values()].map(({ provider, name }) =>
      linked.has(provider.key)
        ? accountForm(
            view,
            'identity-unlink',
            html`${hidden('provider', provider.key)}<button type="submit">Unlink ${name}</button>`,
          )
        : html`<p><a class="button" href="/login/${provider.key}?link=1">Link ${name}</a></p>`,
    )
    return html`<section aria-labelledby="identity-heading">
<h2 id="identity-heading">Sign-in providers</h2>
<p>Sign in with an account you have elsewhere once it is linked here.</p>
${rows}
</section>`
  },

  async handle(ctx, _request, form, view) {
    const key = form.get('provider') ?? ''
    const identities = await ctx.store.signIn.identitiesOf(view.user.id)
    const mine = identities.filter((i) => i.provider === key)
    if (mine.length === 0) return seeOther(accountUrl(view))
    // A user created by a provider has no password: unlinking the last way in would lock them out.
    const factors = await ctx.store.signIn.factorsOf(view.user.id)
    if (view.user.passwordHash === null && identities.length === mine.length && factors.passkeys === 0)
      return seeOther(accountUrl(view, 'identity-last'))
    for (const identity of mine) await ctx.store.signIn.unlinkIdentity(view.user.id, key, identity.subject)
    await appendUserEvent(ctx, view.user, 'identity_unlinked', { provider: key })
    return seeOther(accountUrl(view, 'identity-unlinked'))
  },
}
