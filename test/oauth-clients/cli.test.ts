/**
 * The CLI learns `oauth-clients` from the server's OpenAPI document like any collection: `api
 * create`, `api list` and `api action ... rotate-secret`, as a subprocess against a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Env, loggedInEnv } from '../cli/fixtures.ts'
import { removeTempDirs, spawnCli } from '../cli/harness.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'

let server: TestServer
let tenant: Tenant
let env: Env

beforeAll(async () => {
  server = await startTestServer()
  tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

describe('api and oauth-clients', () => {
  it('creates a public client from key=value words, and lists it', async () => {
    const made = await spawnCli(
      ['create', 'oauth-clients', 'name=web app', 'public=true', 'redirectUris=https://app.example/callback'],
      env,
    )
    expect(made.stderr).toBe('')
    expect(made.code).toBe(0)
    const client = JSON.parse(made.stdout) as Record<string, unknown> & { id: string }
    expect(client).toMatchObject({
      name: 'web app',
      public: true,
      redirectUris: ['https://app.example/callback'],
      grantTypes: ['authorization_code', 'refresh_token'],
    })
    expect(client.secret).toBeUndefined()

    const listed = await spawnCli(['list', 'oauth-clients', '--public', 'true'], env)
    expect(listed.code).toBe(0)
    expect((JSON.parse(listed.stdout) as { id: string }[]).map((c) => c.id)).toEqual([client.id])
  })

  it('creates a confidential client and rotates its secret, shown once each time', async () => {
    const made = await spawnCli(['create', 'oauth-clients', 'name=billing', 'scopes=read:products'], env)
    expect(made.code).toBe(0)
    const client = JSON.parse(made.stdout) as { id: string; secret: string }
    expect(client.secret).toMatch(/^cs_/)
    const rotated = await spawnCli(['action', 'oauth-clients', client.id, 'rotate-secret'], env)
    expect(rotated.code).toBe(0)
    const { secret } = JSON.parse(rotated.stdout) as { secret: string }
    expect(secret).not.toBe(client.secret)
    expect(await clientToken(server.url, { id: client.id, secret }, 'read:products')).toBeString()
    const got = await spawnCli(['get', 'oauth-clients', client.id], env)
    expect(got.stdout).not.toContain(secret)
  })
})
