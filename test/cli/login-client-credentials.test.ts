import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Env, seedOrders, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli, secret, spawnCli, storedFile, tempDir } from './harness.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  secret(acme.token, acme.clientSecret)
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

const freshEnv = (extra: Env = {}): Env => ({ API_URL: server.url, XDG_CONFIG_HOME: tempDir(), ...extra })
const credentials = (t: Tenant) => ({ API_CLIENT_ID: t.clientId, API_CLIENT_SECRET: t.clientSecret })

describe('api login --client-credentials', () => {
  it('logs in from API_CLIENT_ID/API_CLIENT_SECRET into a 0600 file in a 0700 directory', async () => {
    const env = freshEnv(credentials(acme))
    const run = await spawnCli(['login', '--client-credentials'], env)
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
    expect(run.stderr).toStartWith(`Logged in to ${server.url} (scopes: read:users`)
    const file = join(env.XDG_CONFIG_HOME!, 'api', 'credentials.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(join(env.XDG_CONFIG_HOME!, 'api')).mode & 0o777).toBe(0o700)
    const login = storedFile(env.XDG_CONFIG_HOME!)!.servers[server.url]!
    expect(login).toMatchObject({ kind: 'client_credentials', clientId: acme.clientId })
    // Kept (documented) so the CLI can fetch a new token when this one expires.
    expect(login.clientSecret).toBe(acme.clientSecret)
    expect(login.expiresAt as number).toBeGreaterThan(Date.now() + 3500_000)
  })

  it('takes --client-id and --client-secret instead of the environment', async () => {
    const env = freshEnv()
    const run = await runCli(
      ['login', '--client-credentials', '--client-id', acme.clientId, '--client-secret', acme.clientSecret],
      { env },
    )
    expect(run.code).toBe(0)
    const token = run.requests[0]!
    expect(token.url.pathname).toBe('/oauth/token')
    expect(token.headers.get('authorization')).toStartWith('Basic ')
    expect(token.body).toBe('grant_type=client_credentials')
    expect(storedFile(env.XDG_CONFIG_HOME!)!.servers[server.url]!.clientId).toBe(acme.clientId)
  })

  it('asks for --scope when given, and stores the scopes granted', async () => {
    const env = freshEnv(credentials(acme))
    const run = await runCli(['login', '--client-credentials', '--scope', 'read:orders'], { env })
    expect(run.stderr).toBe(`Logged in to ${server.url} (scopes: read:orders).\n`)
    expect(storedFile(env.XDG_CONFIG_HOME!)!.servers[server.url]!.scope).toBe('read:orders')
  })

  it('tightens the mode of a config directory that already existed', async () => {
    const env = freshEnv(credentials(acme))
    mkdirSync(join(env.XDG_CONFIG_HOME!, 'api'), { recursive: true })
    chmodSync(join(env.XDG_CONFIG_HOME!, 'api'), 0o755)
    expect((await runCli(['login', '--client-credentials'], { env })).code).toBe(0)
    expect(statSync(join(env.XDG_CONFIG_HOME!, 'api')).mode & 0o777).toBe(0o700)
  })

  it('refuses wrong credentials with exit 4 and stores nothing', async () => {
    const env = freshEnv({ API_CLIENT_ID: acme.clientId, API_CLIENT_SECRET: 'cs_wrong-secret-value' })
    const run = await runCli(['login', '--client-credentials'], { env })
    expect(run.code).toBe(4)
    expect(run.stderr).toContain('the server refused the client credentials (invalid_client')
    expect(storedFile(env.XDG_CONFIG_HOME!)).toBeNull()
  })

  it('exits 3, not 4, when the server cannot be reached', async () => {
    const run = await runCli(['login', '--client-credentials'], {
      env: { ...freshEnv(credentials(acme)), API_URL: 'http://127.0.0.1:9' },
    })
    expect(run.code).toBe(3)
    expect(run.stderr).toStartWith('api: could not reach http://127.0.0.1:9')
  })

  const missing: { name: string; env: () => Env }[] = [
    { name: 'no client id', env: () => ({ API_CLIENT_SECRET: acme.clientSecret }) },
    { name: 'no client secret', env: () => ({ API_CLIENT_ID: acme.clientId }) },
  ]
  for (const { name, env: extra } of missing) {
    it(`exits 2 before any request with ${name}`, async () => {
      const run = await runCli(['login', '--client-credentials'], { env: freshEnv(extra()) })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain('--client-credentials needs API_CLIENT_ID and API_CLIENT_SECRET')
      expect(run.requests).toHaveLength(0)
    })
  }

  it('keeps one login per server URL', async () => {
    const other = await startTestServer()
    try {
      const globex = await other.tenant()
      secret(globex.token, globex.clientSecret)
      const configHome = tempDir()
      const envA = { API_URL: server.url, XDG_CONFIG_HOME: configHome }
      const envB = { API_URL: `${other.url}/`, XDG_CONFIG_HOME: configHome }
      expect(
        (await runCli(['login', '--client-credentials'], { env: { ...envA, ...credentials(acme) } })).code,
      ).toBe(0)
      expect(
        (await runCli(['login', '--client-credentials'], { env: { ...envB, ...credentials(globex) } })).code,
      ).toBe(0)
      expect(Object.keys(storedFile(configHome)!.servers).sort()).toEqual([server.url, other.url].sort())
      const whoA = JSON.parse((await runCli(['whoami'], { env: envA })).stdout)
      const whoB = JSON.parse((await runCli(['whoami'], { env: envB })).stdout)
      expect([whoA.organization, whoB.organization]).toEqual([acme.orgId, globex.orgId])
      expect((await runCli(['logout'], { env: envB })).code).toBe(0)
      expect(Object.keys(storedFile(configHome)!.servers)).toEqual([server.url])
    } finally {
      await other.stop()
    }
  })
})

describe('api whoami', () => {
  it('shows the client, organization, scopes and expiry as JSON when piped, never the token', async () => {
    const env = freshEnv(credentials(acme))
    await runCli(['login', '--client-credentials', '--scope', 'read:orders write:orders'], { env })
    const run = await runCli(['whoami'], { env })
    expect(run.code).toBe(0)
    const info = JSON.parse(run.stdout)
    expect(info).toMatchObject({
      server: server.url,
      kind: 'client',
      subject: acme.clientId,
      client: acme.clientId,
      organization: acme.orgId,
      scopes: ['read:orders', 'write:orders'],
      source: join(env.XDG_CONFIG_HOME!, 'api', 'credentials.json'),
    })
    expect(Date.parse(info.expiresAt) - Date.now()).toBeGreaterThan(3500_000)
    // The server is asked whether the token still works: a read the token's scopes allow.
    expect(run.requests.map((r) => `${r.method} ${r.url.pathname}${r.url.search}`)).toEqual([
      'GET /api/v2/orders?limit=1',
    ])
  })

  it('shows aligned fields on a terminal', async () => {
    const env = freshEnv(credentials(acme))
    await runCli(['login', '--client-credentials'], { env })
    const run = await runCli(['whoami'], { env: { ...env, NO_COLOR: '1' }, tty: true })
    expect(run.stdout).toMatch(new RegExp(`^organization +${acme.orgId}$`, 'm'))
    expect(run.stdout).toMatch(/^expiresAt +\d{4}-\d\d-\d\dT/m)
  })

  it('exits 4 and says how to log in when there is no login', async () => {
    const run = await runCli(['whoami'], { env: freshEnv() })
    expect(run.code).toBe(4)
    expect(run.stderr).toBe(`api: not logged in to ${server.url}; run: api login\n`)
  })
})

describe('api logout', () => {
  it('revokes the token on the server and deletes the stored login', async () => {
    const env = freshEnv(credentials(acme))
    await runCli(['login', '--client-credentials'], { env })
    const token = storedFile(env.XDG_CONFIG_HOME!)!.servers[server.url]!.accessToken as string
    const run = await runCli(['logout'], { env })
    expect(run.code).toBe(0)
    expect(run.stderr).toEndWith(`Logged out of ${server.url}.\n`)
    const revoke = run.requests.find((r) => r.url.pathname === '/oauth/revoke')!
    expect(new URLSearchParams(revoke.body).get('token')).toBe(token)
    expect(revoke.headers.get('authorization')).toStartWith('Basic ')
    expect(storedFile(env.XDG_CONFIG_HOME!)).toBeNull()
    expect((await runCli(['whoami'], { env })).code).toBe(4)
    secret(token)
    const revoked = await runCli(['list', 'orders'], { env: { ...env, API_TOKEN: token } })
    expect(revoked.code).toBe(4)
  })

  it('says so and exits 0 when not logged in', async () => {
    const run = await runCli(['logout'], { env: freshEnv() })
    expect(run.code).toBe(0)
    expect(run.stderr).toBe(`Not logged in to ${server.url}.\n`)
    expect(run.requests).toHaveLength(0)
  })

  it('treats an unreadable credentials file as no login', async () => {
    const env = freshEnv()
    mkdirSync(join(env.XDG_CONFIG_HOME!, 'api'), { recursive: true })
    writeFileSync(join(env.XDG_CONFIG_HOME!, 'api', 'credentials.json'), '{"servers": {')
    const run = await runCli(['whoami'], { env })
    expect(run.code).toBe(4)
    expect(run.stderr).toContain('not logged in')
  })
})

describe('API_TOKEN', () => {
  it('bypasses the stored login', async () => {
    const globex = await server.tenant()
    secret(globex.token, globex.clientSecret)
    await seedOrders(globex, await seedUser(globex), [{ amount: 31337, status: 'paid' }])
    const env = freshEnv(credentials(acme))
    await runCli(['login', '--client-credentials'], { env })
    const run = await runCli(['list', 'orders'], { env: { ...env, API_TOKEN: globex.token } })
    expect(run.requests).toHaveLength(1)
    expect(run.requests[0]!.headers.get('authorization')).toBe(`Bearer ${globex.token}`)
    expect(JSON.parse(run.stdout).map((o: { amount: { value: number } }) => o.amount.value)).toEqual([31337])
    const who = JSON.parse((await runCli(['whoami'], { env: { ...env, API_TOKEN: globex.token } })).stdout)
    expect(who).toMatchObject({ organization: globex.orgId, source: 'API_TOKEN' })
  })

  it('is never renewed: a rejected API_TOKEN exits 4 after one request', async () => {
    const run = await runCli(['list', 'orders'], { env: freshEnv({ API_TOKEN: 'not-a-valid-token-at-all' }) })
    expect(run.code).toBe(4)
    expect(run.requests).toHaveLength(1)
    expect(run.stderr).toContain('UNAUTHORIZED (401)')
  })
})
