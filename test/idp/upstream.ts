/**
 * A real OpenID Connect provider (`oidc-provider`) on a loopback port, the upstream of the tests'
 * `--idp` files. Its login name is the subject; the account's e-mail is the login name without an
 * `unverified-` prefix, and `email_verified` is false with that prefix, unless a test gives the
 * account another address (`accounts`). `misbehave.nonce` makes it re-sign its ID tokens with
 * another nonce: a real provider misbehaving, through a middleware of its own.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import Provider from 'oidc-provider'
import type { PageAgent } from '../oauth/support.ts'

export const UPSTREAM_CLIENT_ID = 'api-service'
export const UPSTREAM_SECRET = 'upstream-client-secret-not-for-logs-0123456789'

export interface Upstream {
  issuer: string
  /** Registers our redirect URIs: the provider is built once our server's address is known. */
  start: (redirectUris: string[]) => Promise<void>
  accounts: Map<string, { email: string; verified: boolean }>
  misbehave: { nonce: boolean }
  stop: () => Promise<void>
}

export async function startUpstream(): Promise<Upstream> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null
  const server: Server = createServer((req, res) => {
    if (handler) handler(req, res)
    else res.writeHead(503).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  const jwk = { ...(await exportJWK(privateKey)), kid: 'upstream-1', alg: 'RS256', use: 'sig' }
  const accounts = new Map<string, { email: string; verified: boolean }>()
  const misbehave = { nonce: false }
  const start = async (redirectUris: string[]) => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: UPSTREAM_CLIENT_ID,
          client_secret: UPSTREAM_SECRET,
          redirect_uris: redirectUris,
          token_endpoint_auth_method: 'client_secret_basic',
        },
      ],
      jwks: { keys: [jwk] },
      cookies: { keys: ['upstream-cookie-key'] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      // The ID token carries the e-mail claims the scope asks for (the test reads no userinfo).
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: true } },
      findAccount: (_ctx: unknown, id: string) => {
        const account = accounts.get(id) ?? {
          email: id.replace(/^unverified-/, ''),
          verified: !id.startsWith('unverified-'),
        }
        return {
          accountId: id,
          claims: () => ({
            sub: id,
            email: account.email,
            email_verified: account.verified,
            name: `Person ${id}`,
          }),
        }
      },
    })
    provider.use(async (ctx, next) => {
      await next()
      const body = ctx.body as { id_token?: string } | undefined
      if (ctx.path === '/token' && misbehave.nonce && body?.id_token) {
        const [, payload] = body.id_token.split('.')
        const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
        body.id_token = await new SignJWT({ ...claims, nonce: 'another-sign-in' })
          .setProtectedHeader({ alg: 'RS256', kid: 'upstream-1' })
          .sign(privateKey)
      }
    })
    handler = provider.callback()
  }
  return {
    issuer,
    start,
    accounts,
    misbehave,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/**
 * Signs in at the upstream as `login` through its development pages (login, then consent) and
 * returns where it sends the browser back: our callback with `code` and `state`.
 */
export async function upstreamSignIn(agent: PageAgent, authorizeUrl: string, login: string): Promise<string> {
  let location = authorizeUrl
  for (let hop = 0; hop < 12; hop++) {
    if (location.includes('/login/') && location.includes('/callback')) return location
    const response = await agent.get(location)
    if (response.status >= 300 && response.status < 400) {
      location = new URL(response.headers.get('location')!, location).toString()
      continue
    }
    const page = await response.text()
    const action = page.match(/<form[^>]*action="([^"]+)"/)?.[1]
    if (!action) throw new Error(`upstream page without a form (${response.status}):\n${page.slice(0, 500)}`)
    const prompt = page.match(/name="prompt" value="([^"]+)"/)?.[1]
    const body = new URLSearchParams({ prompt: prompt ?? 'login' })
    if (prompt === 'login') {
      body.set('login', login)
      body.set('password', 'any')
    }
    const posted = await agent.request(new URL(action, location).toString(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    })
    location = new URL(posted.headers.get('location')!, location).toString()
  }
  throw new Error('the upstream sign-in did not come back')
}
