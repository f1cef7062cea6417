import * as oidc from 'openid-client'
import { createUser } from '../../server/admin/users.ts'
import type { NewClient } from '../../server/store/types.ts'
import type { TestServer } from '../support/server.ts'

export const PASSWORD = 'correct horse battery'

/** A fresh organization with one user of each role (password PASSWORD). */
export async function orgWithUsers(server: TestServer, name: string) {
  const org = await server.store.orgs.create(name)
  const slug = name.toLowerCase().replace(/\W+/g, '-')
  const make = async (role: string) => {
    const email = `${role}@${slug}.example`
    const { id } = await createUser(server.store, {
      org: org.id,
      email,
      name: `${role} of ${name}`,
      role,
      password: PASSWORD,
    })
    return { id, email }
  }
  return {
    orgId: org.id,
    admin: await make('admin'),
    member: await make('member'),
    viewer: await make('viewer'),
  }
}

export async function registerClient(
  server: TestServer,
  input: Partial<NewClient> & { orgId: string | null },
): Promise<{ id: string; secret: string | undefined }> {
  const { client, secret } = await server.store.clients.create({ name: 'Test App', public: false, ...input })
  return { id: client.id, secret: secret ?? undefined }
}

/** openid-client configured from the server's RFC 8414 metadata (plain http: a loopback test server). */
export function discover(server: TestServer, clientId: string, secret?: string): Promise<oidc.Configuration> {
  return oidc.discovery(
    new URL(server.url),
    clientId,
    secret,
    secret === undefined ? oidc.None() : oidc.ClientSecretBasic(secret),
    { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] },
  )
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
}
const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!)

/**
 * A minimal browser for the pages, without JavaScript (as the pages must work): keeps cookies,
 * never follows redirects by itself, and fills forms from the hidden fields of the last page.
 */
export class PageAgent {
  readonly cookies = new Map<string, string>()
  constructor(readonly base: string) {}

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers)
    if (this.cookies.size > 0)
      headers.set('Cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '))
    const response = await fetch(new URL(url, this.base), { ...init, headers, redirect: 'manual' })
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';')
      const eq = pair!.indexOf('=')
      const name = pair!.slice(0, eq)
      const value = pair!.slice(eq + 1)
      if (/Max-Age=0/i.test(cookie)) this.cookies.delete(name)
      else this.cookies.set(name, value)
    }
    return response
  }

  get(url: string): Promise<Response> {
    return this.request(url)
  }

  /** Posts the form of `page` whose `step` field is `step`, with its hidden fields and `fields`. */
  submit(
    page: string,
    step: string,
    fields: Record<string, string> = {},
    headers: Record<string, string> = {},
  ) {
    const forms = [...page.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)]
    const form = forms.find((f) => f[2]!.includes(`name="step" value="${step}"`))
    if (!form) throw new Error(`no ${step} form on the page:\n${page}`)
    const body = new URLSearchParams()
    for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      body.set(input[1]!, unescapeHtml(input[2]!))
    for (const [k, v] of Object.entries(fields)) body.set(k, v)
    return this.request(unescapeHtml(form[1]!), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: this.base, ...headers },
      body: body.toString(),
    })
  }
}

/**
 * Goes through login and consent for an authorization URL and returns where the server sends
 * the browser at the end (the client's redirect URI with code or error).
 */
export async function authorizeByHttp(
  agent: PageAgent,
  authorizationUrl: URL | string,
  login: { email: string; password?: string },
  decision: 'allow' | 'deny' = 'allow',
): Promise<string> {
  let response = await agent.get(String(authorizationUrl))
  if (response.status === 303) return response.headers.get('location')!
  let page = await response.text()
  if (page.includes('name="step" value="login"')) {
    response = await agent.submit(page, 'login', { email: login.email, password: login.password ?? PASSWORD })
    if (response.status !== 303) throw new Error(`login failed: ${response.status} ${await response.text()}`)
    response = await agent.get(response.headers.get('location')!)
    if (response.status === 303) return response.headers.get('location')!
    page = await response.text()
  }
  response = await agent.submit(page, 'consent', { decision })
  if (response.status !== 303) throw new Error(`consent failed: ${response.status} ${await response.text()}`)
  return response.headers.get('location')!
}

/** A PKCE pair and state, as a client makes them. */
export async function pkce() {
  const verifier = oidc.randomPKCECodeVerifier()
  return { verifier, challenge: await oidc.calculatePKCECodeChallenge(verifier), state: oidc.randomState() }
}

/**
 * An authorization request (code flow, PKCE S256) as a browser first meets it: its path and
 * query, with the verifier and state the client keeps for the redirect back.
 */
export async function authorizationPath(request: {
  clientId: string
  redirectUri: string
  scope?: string
}): Promise<{ path: string; verifier: string; state: string }> {
  const { verifier, challenge, state } = await pkce()
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    ...(request.scope ? { scope: request.scope } : {}),
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })
  return { path: `/oauth/authorize?${query}`, verifier, state }
}

/** POST a form to the server (for the checks a certified client library would never send). */
export function postForm(
  server: TestServer,
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return server.fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  })
}

export const basicAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`

/** One complete authorization-code flow (PKCE, state) driven by openid-client; returns its tokens. */
export async function codeFlow(
  server: TestServer,
  config: oidc.Configuration,
  redirectUri: string,
  /** The user who signs in: an e-mail address (password PASSWORD), or both. */
  login: string | { email: string; password: string },
  params: Record<string, string> = {},
) {
  const { verifier, challenge, state } = await pkce()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    ...params,
  })
  const callback = await authorizeByHttp(
    new PageAgent(server.url),
    url,
    typeof login === 'string' ? { email: login } : login,
  )
  return oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  })
}

/** The OAuth error code a rejected openid-client call carries. */
export async function oauthErrorOf(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail')
    },
    (e: unknown) => e,
  )
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError)
    return error.error
  throw error
}

/** Goes through the /device pages as a person would: the code, login, then allow or deny. */
export async function answerDevicePrompt(
  agent: PageAgent,
  userCode: string,
  email: string,
  decision: 'allow' | 'deny' = 'allow',
): Promise<string> {
  let page = await (await agent.get('/device')).text()
  let response = await agent.submit(page, 'code', { user_code: userCode })
  if (response.status !== 303) throw new Error(`code refused: ${response.status} ${await response.text()}`)
  const flow = response.headers.get('location')!
  page = await (await agent.get(flow)).text()
  if (page.includes('name="step" value="login"')) {
    response = await agent.submit(page, 'login', { email, password: PASSWORD })
    if (response.status !== 303) throw new Error(`login failed: ${response.status}`)
    page = await (await agent.get(response.headers.get('location')!)).text()
  }
  response = await agent.submit(page, 'consent', { decision })
  return (await agent.get(response.headers.get('location')!)).text()
}
