/**
 * Signing in: the console is the public OAuth client `api-console` of the service it is served
 * by. Authorization code with PKCE (RFC 7636, S256) and `state`; the tokens live in memory and in
 * sessionStorage, so they end with the tab, and never appear in a URL.
 */
import { pkcePair, randomValue } from './pkce.ts'

const SESSION = 'api-console:session'
const PENDING = 'api-console:pending'
const SIGNED_OUT = 'api-console:signed-out'
const CLIENT_ID = 'api-console'

interface Session {
  accessToken: string
  refreshToken: string | null
  /** Milliseconds since the epoch. */
  expiresAt: number
  scopes: string[]
  /** The user the token was issued for and their organization (the JWT's `sub` and `org_id`). */
  subject: string
  organization: string
}

let current: Session | null = read()
let timer: ReturnType<typeof setTimeout> | undefined
const listeners = new Set<() => void>()

function read(): Session | null {
  try {
    const text = sessionStorage.getItem(SESSION)
    return text ? (JSON.parse(text) as Session) : null
  } catch {
    return null
  }
}

export const session = () => current
export const onSessionChange = (listener: () => void) => {
  listeners.add(listener)
  return () => listeners.delete(listener)
}
export const wasSignedOut = () => sessionStorage.getItem(SIGNED_OUT) !== null

function keep(next: Session | null) {
  current = next
  if (next) sessionStorage.setItem(SESSION, JSON.stringify(next))
  else sessionStorage.removeItem(SESSION)
  schedule(next)
  for (const listener of listeners) listener()
}

// Renewed a minute before it expires (or at once when that is past), also after a reload.
function schedule(next: Session | null) {
  clearTimeout(timer)
  if (next?.refreshToken)
    timer = setTimeout(() => void refresh(), Math.max(0, next.expiresAt - Date.now() - 60_000))
}
schedule(current)

const redirectUri = () => `${location.origin}/console/callback`

/** Goes to the service's login page, asking for `scopes`; comes back to where it left. */
export async function signIn(scopes: readonly string[]): Promise<void> {
  const { verifier, challenge } = await pkcePair()
  const state = randomValue()
  const returnTo = location.pathname.startsWith('/console/callback')
    ? '/console/'
    : location.pathname + location.search
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, returnTo }))
  sessionStorage.removeItem(SIGNED_OUT)
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    scope: scopes.join(' '),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  location.assign(`/oauth/authorize?${query}`)
}

// Read for display only: the API checks the token, the console never trusts these claims.
function claimsOf(jwt: string): Record<string, unknown> {
  try {
    const payload = jwt.split('.')[1] ?? ''
    return JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/')))
  } catch {
    return {}
  }
}

async function tokenRequest(form: Record<string, string>): Promise<Session> {
  const response = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...form, client_id: CLIENT_ID }),
  })
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  if (!response.ok || typeof body.access_token !== 'string')
    throw new Error(
      String(body.error_description ?? body.error ?? `the token endpoint answered ${response.status}`),
    )
  return {
    accessToken: body.access_token,
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
    expiresAt: Date.now() + Number(body.expires_in ?? 300) * 1000,
    scopes: String(body.scope ?? '')
      .split(' ')
      .filter(Boolean),
    subject: String(claimsOf(body.access_token).sub ?? ''),
    organization: String(claimsOf(body.access_token).org_id ?? ''),
  }
}

/** The end of the sign-in (/console/callback): checks `state`, redeems the code; returns where to go. */
export async function finishSignIn(url: URL): Promise<string> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as {
    verifier: string
    state: string
    returnTo: string
  } | null
  sessionStorage.removeItem(PENDING)
  const error = url.searchParams.get('error')
  if (error) throw new Error(url.searchParams.get('error_description') ?? error)
  // RFC 9207: the answer names its issuer, which must be the server the console came from.
  const issuer = url.searchParams.get('iss')
  if (issuer !== null && issuer !== location.origin)
    throw new Error(`The sign-in answer came from ${issuer}.`)
  const code = url.searchParams.get('code')
  if (!pending || !code || url.searchParams.get('state') !== pending.state)
    throw new Error('This sign-in was not started here, or it was already used. Sign in again.')
  keep(
    await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      code_verifier: pending.verifier,
    }),
  )
  return pending.returnTo
}

let refreshing: Promise<boolean> | undefined
/** Renews the access token with the refresh token; false (and signed out) when it cannot. */
export function refresh(): Promise<boolean> {
  const token = current?.refreshToken
  if (!token) return Promise.resolve(false)
  refreshing ??= tokenRequest({ grant_type: 'refresh_token', refresh_token: token })
    .then((next) => {
      keep(next)
      return true
    })
    .catch(() => {
      keep(null)
      return false
    })
    .finally(() => {
      refreshing = undefined
    })
  return refreshing
}

/** Revokes the tokens (RFC 7009) and forgets them. */
export async function signOut(): Promise<void> {
  const ending = current
  sessionStorage.setItem(SIGNED_OUT, '1')
  keep(null)
  if (!ending) return
  for (const token of [ending.refreshToken, ending.accessToken])
    if (token)
      await fetch('/oauth/revoke', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: CLIENT_ID }),
      }).catch(() => undefined)
}
