import { decodeBase64urlIgnorePadding } from '@oslojs/encoding'
import { deviceLogin } from '../auth/device.ts'
import { loginFromTokens } from '../auth/session.ts'
import { OAuthFailure, postForm, requestToken } from '../auth/token-endpoint.ts'
import { webLogin } from '../auth/web.ts'
import { credentialsPath, deleteLogin, loadLogin, type StoredLogin, saveLogin } from '../config.ts'
import type { Context } from '../context.ts'
import { AuthNeeded, UsageError } from '../errors.ts'
import { parseBody } from '../http.ts'
import { printValue } from '../output.ts'

/** The CLI's public OAuth client, present on every server (contract). */
const CLI_CLIENT_ID = 'api-cli'

/**
 * `api login`: the device flow by default, `--web` for authorization code + PKCE in a browser,
 * `--client-credentials` for CI (from flags or API_CLIENT_ID / API_CLIENT_SECRET).
 */
export async function login(ctx: Context, options: Record<string, unknown>): Promise<void> {
  const { io, server } = ctx
  const scope = options.scope === undefined ? undefined : String(options.scope)
  if (options.web && options.clientCredentials)
    throw new UsageError('choose --web or --client-credentials, not both')
  const current = io.env.API_TOKEN ? null : loadLogin(io.env, server)
  if (current && !options.force) {
    const who = `Logged in to ${server} as ${describeLogin(current)}`
    if (!(io.stdinIsTTY && io.stderrIsTTY))
      throw new UsageError(`${who}; to log in again: api login --force (or api logout first)`)
    if (!(await io.confirm(`${who}. Log in again?`))) throw new UsageError('still logged in as before')
  }
  if (options.clientCredentials) {
    const id = String(options.clientId ?? io.env.API_CLIENT_ID ?? '')
    const secret = String(options.clientSecret ?? io.env.API_CLIENT_SECRET ?? '')
    if (!id || !secret)
      throw new UsageError(
        '--client-credentials needs API_CLIENT_ID and API_CLIENT_SECRET (or --client-id/--client-secret)',
      )
    const form: Record<string, string> = { grant_type: 'client_credentials' }
    if (scope) form.scope = scope
    const tokens = await requestToken(io, server, form, { id, secret }).catch((error) => {
      // An unreachable server stays a network error (exit 3), not a refusal.
      if (!(error instanceof OAuthFailure)) throw error
      throw new AuthNeeded(`the server refused the client credentials (${error.message})`)
    })
    saveLogin(io.env, server, {
      ...loginFromTokens('client_credentials', id, tokens, io.now()),
      clientSecret: secret,
    })
  } else {
    const tokens = options.web
      ? await webLogin(io, server, CLI_CLIENT_ID, scope)
      : await deviceLogin(io, server, CLI_CLIENT_ID, scope)
    saveLogin(
      io.env,
      server,
      loginFromTokens(options.web ? 'web' : 'device', CLI_CLIENT_ID, tokens, io.now()),
    )
  }
  const stored = loadLogin(io.env, server)!
  io.stderr(`Logged in to ${server} (scopes: ${stored.scope || 'none'}).\n`)
}

/** `api logout`: revokes the refresh and access tokens on the server, then forgets them. */
export async function logout(ctx: Context): Promise<void> {
  const { io, server } = ctx
  const stored = loadLogin(io.env, server)
  if (!stored) {
    io.stderr(`Not logged in to ${server}.\n`)
    return
  }
  const basic = stored.clientSecret ? { id: stored.clientId, secret: stored.clientSecret } : undefined
  for (const token of [stored.refreshToken, stored.accessToken]) {
    if (!token) continue
    const form: Record<string, string> = { token }
    if (!basic) form.client_id = stored.clientId
    // RFC 7009 §2.2: 200 even for tokens the server no longer knows; a failure here still logs out locally.
    await postForm(io, `${server}/oauth/revoke`, form, basic).catch(() => {
      io.stderr('Could not revoke the token on the server; it expires on its own.\n')
    })
  }
  deleteLogin(io.env, server)
  io.stderr(`Logged out of ${server}.\n`)
}

/** Who a stored login is, from its token's claims: `usr_… (device login)`; never the token. */
function describeLogin(login: StoredLogin): string {
  const claims = claimsOf(login.accessToken)
  const subject = typeof claims.sub === 'string' ? claims.sub : login.clientId
  const how = { device: 'device login', web: 'browser login', client_credentials: 'client credentials' }[
    login.kind
  ]
  return `${subject} (${how})`
}

function claimsOf(token: string): Record<string, unknown> {
  try {
    return JSON.parse(
      new TextDecoder().decode(decodeBase64urlIgnorePadding(token.split('.')[1] ?? '')),
    ) as Record<string, unknown>
  } catch {
    return {}
  }
}

/**
 * `api whoami`: the user or client, organization, scopes and token expiry (the token itself is
 * never shown), after the server has accepted the token. A JWT says who it was issued to, not
 * whether it still works: the grant may have been revoked or the user deleted since. So whoami
 * asks: a user's own record (which also gives name, email and role), or for a client a
 * one-record read of a collection its token names. Authentication comes before any scope check,
 * so a 403 still proves the token good; a 401 (after one renewal) exits 4.
 */
export async function whoami(ctx: Context): Promise<void> {
  const { io, server } = ctx
  const stored = io.env.API_TOKEN ? null : loadLogin(io.env, server)
  if (!io.env.API_TOKEN && !stored) throw new AuthNeeded(`not logged in to ${server}; run: api login`)
  const api = ctx.api()
  const scopesOf = (claims: Record<string, unknown>) =>
    String(claims.scope ?? '')
      .split(' ')
      .filter(Boolean)
  const issued = claimsOf(await api.token())
  const subject = typeof issued.sub === 'string' ? issued.sub : ''
  const user = subject.startsWith('usr_')
  // A collection the token says it may read: every `read:` scope names one with a list, so
  // whoami needs none of the collections learned from the server (cli/learn/).
  const readable =
    scopesOf(issued)
      .find((s) => /^read:[a-z][a-z0-9-]*$/.test(s))
      ?.slice('read:'.length) ?? 'users'
  const response = await api.send(
    'GET',
    user
      ? `${ctx.prefix}/users/${encodeURIComponent(subject)}`
      : `${ctx.prefix}/${encodeURIComponent(readable)}?limit=1`,
  )
  // 403: the token is good, it only may not read that (no read:users, say).
  let record: unknown = null
  if (response.status === 403) await response.body?.cancel()
  else record = await parseBody(response)
  // The request may have renewed the token: describe the one in use now.
  const claims = claimsOf(await api.token())
  const info: Record<string, unknown> = {
    server,
    kind: user ? 'user' : 'client',
    subject: typeof claims.sub === 'string' ? claims.sub : subject,
    organization: claims.org_id ?? null,
    client: claims.client_id ?? null,
    scopes: scopesOf(claims),
    expiresAt: typeof claims.exp === 'number' ? new Date(claims.exp * 1000).toISOString() : null,
    source: io.env.API_TOKEN ? 'API_TOKEN' : credentialsPath(io.env),
  }
  if (user && record && typeof record === 'object') {
    const { name, email, role } = record as Record<string, unknown>
    Object.assign(info, { name, email, role })
  }
  printValue(io, ctx.format, info)
}
