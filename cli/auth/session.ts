import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { credentialsPath, loadLogin, type StoredLogin, saveLogin } from '../config.ts'
import { AuthNeeded } from '../errors.ts'
import type { Io } from '../io.ts'
import { OAuthFailure, requestToken, type TokenResponse } from './token-endpoint.ts'

/** Renew this long before expiry, so a request never leaves with a token about to die. */
const RENEW_MARGIN_MS = 60_000

/** Where the bearer token of a request comes from. */
export interface Session {
  token: () => Promise<string>
  /** After a 401: renew once if that can help; false when it cannot. */
  renew: () => Promise<boolean>
}

export function loginFromTokens(
  kind: StoredLogin['kind'],
  clientId: string,
  tokens: TokenResponse,
  now: number,
) {
  const login: StoredLogin = {
    kind,
    clientId,
    accessToken: tokens.access_token,
    expiresAt: now + tokens.expires_in * 1000,
    scope: tokens.scope ?? '',
  }
  if (tokens.refresh_token) login.refreshToken = tokens.refresh_token
  return login
}

/** A lock file beside the credentials, so two processes do not rotate one refresh token at once. */
async function withLock<T>(io: Io, run: () => Promise<T>): Promise<T> {
  const lock = `${credentialsPath(io.env)}.lock`
  mkdirSync(dirname(lock), { recursive: true, mode: 0o700 })
  for (let waited = 0; ; waited += 100) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx', mode: 0o600 })
      break
    } catch (error) {
      // Only "someone holds it" is worth waiting for; anything else would spin here for ever.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      let stale = true
      try {
        stale = io.now() - statSync(lock).mtimeMs > 10_000
      } catch {}
      if (stale || waited > 10_000) rmSync(lock, { force: true })
      else await io.sleep(100)
    }
  }
  try {
    return await run()
  } finally {
    rmSync(lock, { force: true })
  }
}

/** `API_TOKEN` when set (never stored, never renewed); otherwise what `api login` kept. */
export function openSession(io: Io, server: string): Session {
  const fixed = io.env.API_TOKEN
  if (fixed) return { token: async () => fixed, renew: async () => false }
  let login = loadLogin(io.env, server)
  const notLoggedIn = () => new AuthNeeded(`not logged in to ${server}; run: api login`)

  const renew = async (): Promise<boolean> => {
    if (!login) return false
    const used = login
    return withLock(io, async () => {
      // Another process may have renewed while we waited for the lock.
      const current = loadLogin(io.env, server)
      if (
        current &&
        current.accessToken !== used.accessToken &&
        current.expiresAt - io.now() > RENEW_MARGIN_MS
      ) {
        login = current
        return true
      }
      try {
        login = await fetchNew(io, server, current ?? used)
        saveLogin(io.env, server, login)
        return true
      } catch (error) {
        if (!(error instanceof OAuthFailure)) throw error
        // A lost race: the refresh token was rotated by another process. Adopt its result once.
        const after = loadLogin(io.env, server)
        if (after && after.refreshToken !== (current ?? used).refreshToken) {
          login = after
          return true
        }
        throw new AuthNeeded(`the login to ${server} has expired (${error.error}); run: api login`)
      }
    })
  }

  return {
    token: async () => {
      if (!login) throw notLoggedIn()
      if (login.expiresAt - io.now() < RENEW_MARGIN_MS) await renew()
      return login.accessToken
    },
    renew,
  }
}

async function fetchNew(io: Io, server: string, login: StoredLogin): Promise<StoredLogin> {
  if (login.kind === 'client_credentials') {
    const secret =
      login.clientSecret ?? (io.env.API_CLIENT_ID === login.clientId ? io.env.API_CLIENT_SECRET : undefined)
    if (!secret)
      throw new AuthNeeded(
        `the client-credentials token for ${server} expired; run: api login --client-credentials`,
      )
    const tokens = await requestToken(
      io,
      server,
      { grant_type: 'client_credentials', scope: login.scope },
      { id: login.clientId, secret },
    )
    return {
      ...loginFromTokens('client_credentials', login.clientId, tokens, io.now()),
      clientSecret: secret,
    }
  }
  if (!login.refreshToken) throw new AuthNeeded(`the login to ${server} has expired; run: api login`)
  const tokens = await requestToken(io, server, {
    grant_type: 'refresh_token',
    refresh_token: login.refreshToken,
    client_id: login.clientId,
  })
  return loginFromTokens(login.kind, login.clientId, tokens, io.now())
}
