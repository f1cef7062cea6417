import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { AuthNeeded } from '../errors.ts'
import type { Io } from '../io.ts'
import { OAuthFailure, postForm, requestToken, type TokenResponse } from './token-endpoint.ts'

const DeviceAuthorization = Type.Object({
  device_code: Type.String(),
  user_code: Type.String(),
  verification_uri: Type.String(),
  verification_uri_complete: Type.Optional(Type.String()),
  expires_in: Type.Number(),
  interval: Type.Optional(Type.Number()),
})
type DeviceAuthorization = Static<typeof DeviceAuthorization>

/**
 * RFC 8628 device authorization grant: prints the code and the address on stderr (opening the
 * browser only on an interactive desktop), then polls at the server's interval, slowing down
 * when told to, until the user approves or denies or the code expires.
 */
export async function deviceLogin(
  io: Io,
  server: string,
  clientId: string,
  scope?: string,
): Promise<TokenResponse> {
  const form: Record<string, string> = { client_id: clientId }
  if (scope) form.scope = scope
  const started: unknown = await postForm(io, `${server}/oauth/device_authorization`, form)
  if (!Value.Check(DeviceAuthorization, started))
    throw new Error('the device authorization answer is not RFC 8628')
  const grant: DeviceAuthorization = started
  const address = grant.verification_uri_complete ?? grant.verification_uri
  io.stderr(`To log in, open ${grant.verification_uri} and enter the code ${grant.user_code}\n`)
  if (grant.verification_uri_complete) io.stderr(`(or open ${grant.verification_uri_complete})\n`)
  if (io.stdinIsTTY && io.stderrIsTTY && (await io.openBrowser(address))) io.stderr('Opened your browser.\n')
  io.stderr('Waiting for approval…\n')
  let interval = (grant.interval ?? 5) * 1000
  const deadline = io.now() + grant.expires_in * 1000
  while (io.now() < deadline) {
    await io.sleep(interval)
    try {
      return await requestToken(io, server, {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: grant.device_code,
        client_id: clientId,
      })
    } catch (error) {
      if (!(error instanceof OAuthFailure)) throw error
      if (error.error === 'authorization_pending') continue
      // RFC 8628 §3.5: slow_down adds 5 seconds to the interval for this and later requests.
      if (error.error === 'slow_down') {
        interval += 5000
        continue
      }
      if (error.error === 'access_denied') throw new AuthNeeded('the login was denied in the browser')
      if (error.error === 'expired_token')
        throw new AuthNeeded('the code expired before it was approved; run api login again')
      throw new AuthNeeded(`the login failed: ${error.message}`)
    }
  }
  throw new AuthNeeded('the code expired before it was approved; run api login again')
}
