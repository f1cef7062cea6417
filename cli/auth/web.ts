import { CodeChallengeMethod, generateCodeVerifier, generateState, OAuth2Client } from 'arctic'
import { AuthNeeded } from '../errors.ts'
import type { Io } from '../io.ts'
import { OAuthFailure, requestToken, type TokenResponse } from './token-endpoint.ts'

const WAIT_MS = 5 * 60_000

const page = (message: string) =>
  new Response(`<!doctype html><meta charset="utf-8"><title>api login</title><p>${message}</p>`, {
    headers: { 'Content-Type': 'text/html; charset=utf-8' },
  })

/**
 * Authorization code with PKCE (RFC 7636) through a loopback redirect on a random port
 * (RFC 8252 §7.3). Checks `state`, and `iss` when the server sends it (RFC 9207).
 */
export async function webLogin(
  io: Io,
  server: string,
  clientId: string,
  scope?: string,
): Promise<TokenResponse> {
  const state = generateState()
  const verifier = generateCodeVerifier()
  let settle: (result: { code: string } | { error: string }) => void = () => {}
  const result = new Promise<{ code: string } | { error: string }>((resolve) => {
    settle = resolve
  })
  const listener = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: (request) => {
      const url = new URL(request.url)
      if (url.pathname !== '/callback') return new Response('not found', { status: 404 })
      const params = url.searchParams
      if (params.get('state') !== state)
        return page('This answer does not belong to this login; it was ignored.')
      const iss = params.get('iss')
      if (iss !== null && iss !== server) {
        settle({ error: `the answer came from ${iss}, not ${server}` })
        return page('Login failed: the answer came from another server.')
      }
      const error = params.get('error')
      if (error) {
        settle({ error: params.get('error_description') ?? error })
        return page('Login was not approved. You can close this tab.')
      }
      const code = params.get('code')
      if (!code) return page('The answer carries no code.')
      settle({ code })
      return page('You are logged in. You can close this tab and go back to the terminal.')
    },
  })
  try {
    const redirectUri = `http://127.0.0.1:${listener.port}/callback`
    const client = new OAuth2Client(clientId, null, redirectUri)
    const url = client.createAuthorizationURLWithPKCE(
      `${server}/oauth/authorize`,
      state,
      CodeChallengeMethod.S256,
      verifier,
      scope ? scope.split(' ') : [],
    )
    const opened = io.stdinIsTTY && io.stderrIsTTY && (await io.openBrowser(url.toString()))
    io.stderr(
      opened
        ? 'Opened your browser to log in.\n'
        : `Open this address in a browser to log in:\n\n  ${url}\n\n`,
    )
    io.stderr('Waiting for the browser…\n')
    const outcome = await Promise.race([
      result,
      io.sleep(WAIT_MS).then(() => ({ error: 'no answer from the browser within 5 minutes' })),
    ])
    if ('error' in outcome) throw new AuthNeeded(`the login failed: ${outcome.error}`)
    // Through io.fetch like every other request (timeout, tests), and checked as a token response.
    return await requestToken(io, server, {
      grant_type: 'authorization_code',
      code: outcome.code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: clientId,
    }).catch((error: unknown) => {
      if (error instanceof OAuthFailure) throw new AuthNeeded(`the server refused the code: ${error.message}`)
      throw error
    })
  } finally {
    // Not stop(true): that cuts the connection before the browser has the page saying how it went.
    await listener.stop()
  }
}
