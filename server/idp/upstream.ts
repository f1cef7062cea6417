/**
 * Each provider type through `arctic`: where to send the person (always PKCE S256 and `state`, a
 * `nonce` for OpenID Connect), and the identity the code gives back (docs/oauth.md, "Outside
 * identity providers").
 */
import {
  ArcticFetchError,
  CodeChallengeMethod,
  Google,
  MicrosoftEntraId,
  OAuth2Client,
  OAuth2RequestError,
  type OAuth2Tokens,
} from 'arctic'
import type { JWTPayload } from 'jose'
import type { IdpProvider } from './config.ts'
import {
  type Discovery,
  discoverer,
  UPSTREAM_TIMEOUT_MS,
  UpstreamError,
  verifyIdToken,
  withDeadline,
} from './oidc.ts'

/** Who the provider says signed in. `email` is null unless the provider vouches for it. */
export interface OutsideIdentity {
  subject: string
  email: string | null
  /** An address the provider names but does not vouch for: shown nowhere, never linked on. */
  unverifiedEmail: string | null
  /** The person's name, for a user created on first sign-in. */
  name: string | null
}

export interface Upstream {
  authorizationUrl(state: string, verifier: string, nonce: string): Promise<URL>
  identity(code: string, verifier: string, nonce: string): Promise<OutsideIdentity>
}

const GITHUB_AUTHORIZE = 'https://github.com/login/oauth/authorize'
const GITHUB_TOKEN = 'https://github.com/login/oauth/access_token'
const OIDC_SCOPES = ['openid', 'email', 'profile']

/** The code exchanged for tokens; arctic's errors as ours (a refused code, or the provider down). */
async function exchange(work: () => Promise<OAuth2Tokens>): Promise<OAuth2Tokens> {
  try {
    return await withDeadline(work())
  } catch (error) {
    if (error instanceof UpstreamError) throw error
    if (error instanceof OAuth2RequestError)
      throw new UpstreamError('refused', `the provider refused the code (${error.code})`)
    if (error instanceof ArcticFetchError)
      throw new UpstreamError('unavailable', 'the token request failed', { cause: error })
    throw new UpstreamError('unavailable', 'the token response could not be read', { cause: error })
  }
}

function idTokenOf(tokens: OAuth2Tokens): string {
  try {
    return tokens.idToken()
  } catch {
    throw new UpstreamError('refused', 'the provider sent no ID token')
  }
}

const emailOf = (claims: JWTPayload, verified: boolean): OutsideIdentity => {
  const email = typeof claims.email === 'string' && claims.email.includes('@') ? claims.email : null
  return {
    subject: claims.sub as string,
    email: verified ? email : null,
    unverifiedEmail: verified ? null : email,
    name: typeof claims.name === 'string' && claims.name.trim() !== '' ? claims.name.trim() : null,
  }
}

function oidcUpstream(provider: IdpProvider, redirectUri: string): Upstream {
  const client = new OAuth2Client(provider.clientId, provider.clientSecret, redirectUri)
  const discovery = discoverer(provider.issuer!)
  return {
    async authorizationUrl(state, verifier, nonce) {
      const { authorizationEndpoint } = await discovery()
      const url = client.createAuthorizationURLWithPKCE(
        authorizationEndpoint,
        state,
        CodeChallengeMethod.S256,
        verifier,
        OIDC_SCOPES,
      )
      url.searchParams.set('nonce', nonce)
      return url
    },
    async identity(code, verifier, nonce) {
      const found = await discovery()
      const tokens = await exchange(() =>
        client.validateAuthorizationCode(found.tokenEndpoint, code, verifier),
      )
      const claims = await verifyIdToken(found, idTokenOf(tokens), { clientId: provider.clientId, nonce })
      return emailOf(claims, claims.email_verified === true)
    },
  }
}

/** What arctic's Google and MicrosoftEntraId clients share: an authorization URL with PKCE, a code exchange. */
interface ArcticOidcClient {
  createAuthorizationURL(state: string, verifier: string, scopes: string[]): URL
  validateAuthorizationCode(code: string, verifier: string): Promise<OAuth2Tokens>
}

/**
 * A provider with its own arctic client and a known issuer: the authorization URL with a `nonce`,
 * the ID token checked against the issuer's discovery document, the e-mail vouched for by `verified`.
 */
function arcticOidcUpstream(
  client: ArcticOidcClient,
  discovery: () => Promise<Discovery>,
  provider: IdpProvider,
  claimsCheck: {
    verified: (claims: JWTPayload) => boolean
    issuerOf?: (found: Discovery, claims: JWTPayload) => string
  },
): Upstream {
  return {
    async authorizationUrl(state, verifier, nonce) {
      const url = client.createAuthorizationURL(state, verifier, OIDC_SCOPES)
      url.searchParams.set('nonce', nonce)
      return url
    },
    async identity(code, verifier, nonce) {
      const tokens = await exchange(() => client.validateAuthorizationCode(code, verifier))
      const found = await discovery()
      const { issuerOf } = claimsCheck
      const claims = await verifyIdToken(found, idTokenOf(tokens), {
        clientId: provider.clientId,
        nonce,
        ...(issuerOf ? { issuerOf: (c: JWTPayload) => issuerOf(found, c) } : {}),
      })
      return emailOf(claims, claimsCheck.verified(claims))
    },
  }
}

const googleUpstream = (provider: IdpProvider, redirectUri: string): Upstream =>
  arcticOidcUpstream(
    new Google(provider.clientId, provider.clientSecret, redirectUri),
    discoverer('https://accounts.google.com'),
    provider,
    { verified: (claims) => claims.email_verified === true },
  )

function microsoftUpstream(provider: IdpProvider, redirectUri: string): Upstream {
  const tenant = provider.tenant!
  return arcticOidcUpstream(
    new MicrosoftEntraId(tenant, provider.clientId, provider.clientSecret, redirectUri),
    discoverer(`https://login.microsoftonline.com/${tenant}/v2.0`, false),
    provider,
    {
      // Entra ID does not vouch for `email` unless the optional claim xms_edov says the domain's
      // owner verified it: without it, anyone could put another person's address on an account.
      verified: (claims) => claims.xms_edov === true,
      // The common and organizations documents name `{tenantid}`: the token's own tenant fills it.
      issuerOf: (found, claims) => found.issuer.replace('{tenantid}', String(claims.tid ?? '')),
    },
  )
}

/**
 * GitHub through arctic's generic client with GitHub's endpoints: arctic's GitHub class sends no
 * PKCE, which GitHub accepts and this server always uses.
 */
function githubUpstream(provider: IdpProvider, redirectUri: string): Upstream {
  const client = new OAuth2Client(provider.clientId, provider.clientSecret, redirectUri)
  const api = async (path: string, token: string): Promise<unknown> => {
    let response: Response
    try {
      response = await fetch(`https://api.github.com${path}`, {
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/vnd.github+json',
          'User-Agent': 'api-service',
        },
        signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      })
    } catch (error) {
      throw new UpstreamError('unavailable', 'the GitHub API could not be reached', { cause: error })
    }
    if (!response.ok) throw new UpstreamError('unavailable', `the GitHub API answered ${response.status}`)
    return response.json()
  }
  return {
    async authorizationUrl(state, verifier) {
      return client.createAuthorizationURLWithPKCE(
        GITHUB_AUTHORIZE,
        state,
        CodeChallengeMethod.S256,
        verifier,
        ['read:user', 'user:email'],
      )
    },
    async identity(code, verifier) {
      const tokens = await exchange(() => client.validateAuthorizationCode(GITHUB_TOKEN, code, verifier))
      const user = (await api('/user', tokens.accessToken())) as {
        id?: unknown
        name?: unknown
        login?: unknown
      }
      if (typeof user.id !== 'number') throw new UpstreamError('refused', 'GitHub named no user')
      const emails = await api('/user/emails', tokens.accessToken())
      const listed = Array.isArray(emails)
        ? (emails as { email?: unknown; verified?: unknown; primary?: unknown }[])
        : []
      // Only addresses GitHub verified, the primary one first.
      const verified = listed
        .filter((e) => e.verified === true && typeof e.email === 'string')
        .sort((a, b) => Number(b.primary === true) - Number(a.primary === true))
      const name =
        typeof user.name === 'string' && user.name
          ? user.name
          : typeof user.login === 'string'
            ? user.login
            : null
      return {
        subject: String(user.id),
        email: (verified[0]?.email as string) ?? null,
        unverifiedEmail: null,
        name,
      }
    },
  }
}

/** The upstream of one declared provider; its redirect URI is `{base}/login/{key}/callback`. */
export function upstreamOf(provider: IdpProvider, baseUrl: string): Upstream {
  const redirectUri = redirectUriOf(baseUrl, provider.key)
  switch (provider.type) {
    case 'github':
      return githubUpstream(provider, redirectUri)
    case 'google':
      return googleUpstream(provider, redirectUri)
    case 'microsoft':
      return microsoftUpstream(provider, redirectUri)
    case 'oidc':
      return oidcUpstream(provider, redirectUri)
  }
}

/** Where the provider sends the person back: what the operator registers with it. */
export const redirectUriOf = (baseUrl: string, key: string) => `${baseUrl}/login/${key}/callback`

/** The name on the login page's link: the entry's `name`, else the type's, else the key. */
export function displayName(provider: IdpProvider): string {
  if (provider.name) return provider.name
  return { github: 'GitHub', google: 'Google', microsoft: 'Microsoft', oidc: provider.key }[provider.type]
}
