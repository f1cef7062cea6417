import type { AnyElysia } from 'elysia'
import { accountPage } from '../account/account-page.ts'
import { secondFactorPage } from '../account/verify-page.ts'
import { PASSKEY_LOGIN_PATH } from '../passkeys/login-button.ts'
import { passkeyLoginEndpoint } from '../passkeys/login-route.ts'
import { PASSKEY_SCRIPT_PATH, passkeyScript } from '../passkeys/script.ts'
import { authorizeEndpoint } from './authorize-endpoint.ts'
import type { OAuthContext } from './context.ts'
import { deviceAuthorizationEndpoint } from './device-authorization.ts'
import { devicePage } from './device-page.ts'
import { introspectionEndpoint } from './introspection.ts'
import { metadataResponse } from './metadata.ts'
import { revocationEndpoint } from './revocation.ts'
import { tokenEndpoint } from './token-endpoint.ts'

/** Mounts the authorization server: its endpoints, its pages and its metadata (contract, "Addresses"). */
export function mountOAuth(app: AnyElysia, ctx: OAuthContext): void {
  const routes: [string, (ctx: OAuthContext, request: Request) => Promise<Response>][] = [
    ['/oauth/token', tokenEndpoint],
    ['/oauth/authorize', authorizeEndpoint],
    ['/oauth/device_authorization', deviceAuthorizationEndpoint],
    ['/oauth/revoke', revocationEndpoint],
    ['/oauth/introspect', introspectionEndpoint],
    ['/device', devicePage],
    ['/account', accountPage],
    ['/login/verify', secondFactorPage],
    [PASSKEY_LOGIN_PATH, passkeyLoginEndpoint],
  ]
  for (const [path, handler] of routes)
    app.all(path, ({ request }) => handler(ctx, request), { parse: 'none' })
  app.get(PASSKEY_SCRIPT_PATH, () => passkeyScript())
  app.get('/.well-known/oauth-authorization-server', () => metadataResponse(ctx.schema, ctx.issuer))
}
