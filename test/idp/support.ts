/**
 * Our server with an `--idp` configuration whose `corp` provider is a real `oidc-provider` on a
 * loopback port (test/idp/upstream.ts). The organizations exist before it starts, as
 * `createUsers.org` requires: a first server makes them on a fresh database, and the server under
 * test is a second one on that database, as a replica would be.
 */
import * as oidc from 'openid-client'
import type { IdpConfig } from '../../server/idp/config.ts'
import { createLogger } from '../../server/ops/logger.ts'
import { type RunningServer, serve } from '../../server/serve.ts'
import { discover, orgWithUsers, PageAgent, pkce, registerClient } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import {
  startUpstream,
  UPSTREAM_CLIENT_ID,
  UPSTREAM_SECRET,
  type Upstream,
  upstreamSignIn,
} from './upstream.ts'

const CLIENT_REDIRECT = 'http://127.0.0.1:4700/callback'

export interface IdpWorld {
  base: TestServer
  server: RunningServer
  upstream: Upstream
  acme: Awaited<ReturnType<typeof orgWithUsers>>
  globex: Awaited<ReturnType<typeof orgWithUsers>>
  /** A client registered to Acme, and one to Globex. */
  acmeClient: { id: string; secret: string | undefined }
  globexClient: { id: string; secret: string | undefined }
  /** Everything the server logged and printed. */
  logs: string[]
  stop: () => Promise<void>
}

export async function startIdpWorld(): Promise<IdpWorld> {
  const upstream = await startUpstream()
  // A provider that takes the connection and never answers: past 5 s it counts as down.
  const silent = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const base = await startTestServer()
  const acme = await orgWithUsers(base, 'Acme')
  const globex = await orgWithUsers(base, 'Globex')
  const client = (orgId: string) =>
    registerClient(base, { orgId, redirectUris: [CLIENT_REDIRECT], grantTypes: ['authorization_code'] })
  const acmeClient = await client(acme.orgId)
  const globexClient = await client(globex.orgId)
  const oidcEntry = {
    type: 'oidc' as const,
    issuer: upstream.issuer,
    clientId: UPSTREAM_CLIENT_ID,
    clientSecret: UPSTREAM_SECRET,
  }
  const config: IdpConfig = {
    providers: [
      { key: 'corp', name: 'Corp SSO', ...oidcEntry },
      { key: 'corp-create', name: 'Corp Join', ...oidcEntry, createUsers: { org: 'Globex', role: 'viewer' } },
      { key: 'down', name: 'Down SSO', ...oidcEntry, issuer: 'http://127.0.0.1:9' },
      { key: 'silent', name: 'Silent SSO', ...oidcEntry, issuer: `http://127.0.0.1:${silent.port}` },
      { key: 'github', type: 'github', clientId: 'gh-client', clientSecret: 'gh-secret-not-for-logs' },
      { key: 'google', type: 'google', clientId: 'g-client', clientSecret: 'g-secret-not-for-logs' },
      {
        key: 'microsoft',
        type: 'microsoft',
        tenant: 'contoso.example',
        clientId: 'ms-client',
        clientSecret: 'ms-secret-not-for-logs',
      },
    ],
  }
  const logs: string[] = []
  const server = await serve({
    host: '127.0.0.1',
    port: 0,
    db: base.dbPath,
    rateLimit: 1_000_000,
    logger: createLogger('debug', (line) => logs.push(line)),
    out: (line) => logs.push(line),
    idp: { file: 'idp.json', config },
  })
  await upstream.start(['corp', 'corp-create'].map((key) => `${server.baseUrl}/login/${key}/callback`))
  return {
    base,
    server,
    upstream,
    acme,
    globex,
    acmeClient,
    globexClient,
    logs,
    stop: async () => {
      await server.stop()
      await base.stop()
      await upstream.stop()
      silent.stop(true)
    },
  }
}

/** The client's authorization request, as a browser first meets our login page. */
export async function authorizationRequest(
  world: IdpWorld,
  client: { id: string; secret: string | undefined },
) {
  const config = await discover({ url: world.server.baseUrl } as TestServer, client.id, client.secret)
  const { verifier, challenge, state } = await pkce()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CLIENT_REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope: 'read:orders',
    state,
  })
  return { config, url, verifier, state }
}

/** The login page's `Sign in with …` link for `key`, as the page shows it. */
export function providerHref(page: string, key: string): string {
  const href = page.match(new RegExp(`<a class="button" href="(/login/${key}\\?flow=[^"]+)"`))?.[1]
  if (!href) throw new Error(`no link for ${key} on the page:\n${page.slice(0, 1500)}`)
  return href.replaceAll('&amp;', '&')
}

/**
 * From our login page through `key` at the upstream as `login`: returns our callback's answer
 * (the agent keeps the cookies it set).
 */
export async function throughProvider(agent: PageAgent, authorizeUrl: URL, key: string, login: string) {
  const page = await (await agent.get(String(authorizeUrl))).text()
  const start = await agent.get(providerHref(page, key))
  if (start.status !== 303) throw new Error(`/login/${key} answered ${start.status}: ${await start.text()}`)
  const callback = await upstreamSignIn(agent, start.headers.get('location')!, login)
  return { callback, response: await agent.get(callback) }
}

export const newAgent = (world: IdpWorld) => new PageAgent(world.server.baseUrl)
