/**
 * `api whoami` asks the server: a login whose grant was revoked, or an `API_TOKEN` the server
 * refuses, exits 4 with nothing on stdout, however valid the token looks on its own. Run as a
 * real process, with a user login from the real authorization-code flow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import * as oidc from 'openid-client'
import { saveLogin } from '../../cli/config.ts'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { codeFlow, discover, oauthErrorOf, orgWithUsers } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import type { Env } from './fixtures.ts'
import {
  removeTempDirs,
  secret,
  spawnCli,
  spawnCliOnTerminal,
  tempDir,
  terminalAvailable,
} from './harness.ts'

let server: TestServer
let acme: Awaited<ReturnType<typeof orgWithUsers>>
let cli: oidc.Configuration

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  cli = await discover(server, CLI_CLIENT_ID)
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

/** A config home holding a login of `email` through the CLI's client, as `api login` stores it. */
async function userLogin(email: string): Promise<{ env: Env; refreshToken: string; accessToken: string }> {
  const tokens = await codeFlow(server, cli, 'http://127.0.0.1:5000/callback', email)
  secret(tokens.access_token, tokens.refresh_token)
  const env: Env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
  saveLogin(env, server.url, {
    kind: 'web',
    clientId: CLI_CLIENT_ID,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token!,
    expiresAt: Date.now() + 3600_000,
    scope: tokens.scope ?? '',
  })
  return { env, refreshToken: tokens.refresh_token!, accessToken: tokens.access_token }
}

describe('api whoami', () => {
  it("shows the user as the server knows them: name, e-mail and role from the user's record", async () => {
    const { env } = await userLogin(acme.member.email)
    const run = await spawnCli(['whoami'], env)
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toMatchObject({
      kind: 'user',
      subject: acme.member.id,
      organization: acme.orgId,
      client: CLI_CLIENT_ID,
      name: 'member of Acme',
      email: acme.member.email,
      role: 'member',
    })
  })

  it('exits 4 with nothing on stdout once the refresh family was revoked (a rotated token reused)', async () => {
    const { env, refreshToken } = await userLogin(acme.admin.email)
    // Someone else rotates the stored refresh token, then the old one is replayed: the server
    // revokes the whole family, the stored (still unexpired) access token included.
    const rotated = await oidc.refreshTokenGrant(cli, refreshToken)
    secret(rotated.access_token, rotated.refresh_token)
    expect(await oauthErrorOf(oidc.refreshTokenGrant(cli, refreshToken))).toBe('invalid_grant')
    const run = await spawnCli(['whoami'], env)
    expect(run.code).toBe(4)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('run: api login')
  })

  it('exits 4 after api logout revoked the grant, when the token is given as API_TOKEN', async () => {
    const { env, accessToken } = await userLogin(acme.viewer.email)
    expect((await spawnCli(['logout'], env)).code).toBe(0)
    const run = await spawnCli(['whoami'], { ...env, API_TOKEN: accessToken })
    expect(run.code).toBe(4)
    expect(run.stdout).toBe('')
    expect(run.stderr).toStartWith('error UNAUTHORIZED (401)')
  })

  it('exits 4 for an API_TOKEN the server refuses, printing no empty subject', async () => {
    const run = await spawnCli(['whoami'], {
      API_URL: server.url,
      XDG_CONFIG_HOME: tempDir(),
      API_TOKEN: 'bad',
    })
    expect(run.code).toBe(4)
    expect(run.stdout).toBe('')
    expect(run.stderr).toStartWith('error UNAUTHORIZED (401)')
  })

  it('shows a good token that may read nothing (its 403 still proves the login)', async () => {
    const tenant = await server.tenant({ scope: ['write:orders'] })
    secret(tenant.token, tenant.clientSecret)
    const run = await spawnCli(['whoami'], {
      API_URL: server.url,
      XDG_CONFIG_HOME: tempDir(),
      API_TOKEN: tenant.token,
    })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({
      kind: 'client',
      subject: tenant.clientId,
      scopes: ['write:orders'],
    })
  })

  it.skipIf(!terminalAvailable)('shows aligned fields on a terminal', async () => {
    const { env } = await userLogin(acme.member.email)
    const run = await spawnCliOnTerminal(['whoami'], { ...env, NO_COLOR: '1' })
    expect(run.code).toBe(0)
    expect(run.output).toMatch(/^kind +user$/m)
    expect(run.output).toMatch(/^email +member@acme\.example$/m)
  })
})
