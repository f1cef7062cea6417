import type { OAuthContext } from '../oauth/context.ts'
import { type Html, html } from '../oauth/pages/html.ts'
import { type SignInTarget, signSignInTarget } from '../oauth/sign-in.ts'

/** The login page's link per outside identity provider ("Sign in with Corp SSO"); none without `--idp`. */
export function providerLinks(ctx: OAuthContext, target: SignInTarget): Html {
  if (ctx.idp.size === 0) return html``
  const flow = encodeURIComponent(signSignInTarget(ctx, target))
  return html`<div class="alternatives">
${[...ctx.idp.values()].map(
  (p) => html`<a class="button" href="/login/${p.provider.key}?flow=${flow}">Sign in with ${p.name}</a>`,
)}
</div>`
}
