/**
 * Token renewal: before expiry (fake clock), after a 401, and when two processes race to rotate one
 * refresh token. Requests go to the real server; the refresh races answer from the token endpoint
 * are played by the injected fetch, since a real race needs two processes at the same instant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { type StoredLogin, saveLogin } from '../../cli/config.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Env, loggedInEnv } from './fixtures.ts'
import { removeTempDirs, runCli, secret, storedFile, tempDir } from './harness.ts'

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

const HOUR = 3600_000
const stored = (env: Env) => storedFile(env.XDG_CONFIG_HOME!)!.servers[server.url]!
const calls = (run: { requests: { method: string; url: URL }[] }) =>
  run.requests.map((r) => `${r.method} ${r.url.pathname}`)

/** Stores a login as if `api login` (device flow) had run, with the given tokens. */
function deviceLogin(
  env: Env,
  tokens: { accessToken: string; refreshToken: string; expiresAt: number },
): void {
  saveLogin(env, server.url, { kind: 'device', clientId: 'api-cli', scope: 'read:orders', ...tokens })
}

const oauthError = (error: string) =>
  Response.json({ error, error_description: 'The refresh token is not valid.' }, { status: 400 })

describe('client-credentials login renewal', () => {
  it('fetches a new token before the stored one expires, and stores it', async () => {
    const env = await loggedInEnv(server, acme)
    const before = stored(env)
    const later = Date.now() + 2 * HOUR
    const run = await runCli(['list', 'orders'], { env, now: () => later })
    expect(run.code).toBe(0)
    expect(calls(run)).toEqual(['POST /oauth/token', 'GET /api/v2/orders'])
    expect(new URLSearchParams(run.requests[0]!.body).get('grant_type')).toBe('client_credentials')
    const after = stored(env)
    expect(after.accessToken).not.toBe(before.accessToken)
    expect(after.expiresAt).toBe(later + HOUR)
    expect(run.requests[1]!.headers.get('authorization')).toBe(`Bearer ${after.accessToken}`)
  })

  it('renews within the last minute of a token, not earlier', async () => {
    const env = await loggedInEnv(server, acme)
    const expiresAt = stored(env).expiresAt as number
    const early = await runCli(['list', 'orders'], { env, now: () => expiresAt - 61_000 })
    expect(calls(early)).toEqual(['GET /api/v2/orders'])
    const late = await runCli(['list', 'orders'], { env, now: () => expiresAt - 59_000 })
    expect(calls(late)).toEqual(['POST /oauth/token', 'GET /api/v2/orders'])
  })

  it('renews once after a 401 and repeats the request', async () => {
    const env = await loggedInEnv(server, acme)
    saveLogin(env, server.url, { ...(stored(env) as StoredLogin), accessToken: 'revoked-or-garbled-token' })
    const run = await runCli(['list', 'orders'], { env })
    expect(run.code).toBe(0)
    expect(calls(run)).toEqual(['GET /api/v2/orders', 'POST /oauth/token', 'GET /api/v2/orders'])
    expect(stored(env).accessToken).not.toBe('revoked-or-garbled-token')
  })

  it('exits 4 after one failed renewal instead of looping', async () => {
    const env = await loggedInEnv(server, acme)
    saveLogin(env, server.url, {
      ...(stored(env) as StoredLogin),
      accessToken: 'revoked-or-garbled-token',
      clientSecret: 'cs_no-longer-valid-secret',
    })
    const run = await runCli(['list', 'orders'], { env })
    expect(run.code).toBe(4)
    expect(calls(run)).toEqual(['GET /api/v2/orders', 'POST /oauth/token'])
    expect(run.stderr).toContain('has expired (invalid_client); run: api login')
  })

  it('renews even when the config directory vanished meanwhile (no endless wait for the lock)', async () => {
    const env = await loggedInEnv(server, acme)
    saveLogin(env, server.url, { ...(stored(env) as StoredLogin), accessToken: 'revoked-or-garbled-token' })
    const run = await runCli(['list', 'orders'], {
      env,
      fetch: (input, init) => {
        rmSync(join(env.XDG_CONFIG_HOME!, 'api'), { recursive: true, force: true })
        return fetch(input, init)
      },
    })
    expect(run.code).toBe(0)
    expect(calls(run)).toEqual(['GET /api/v2/orders', 'POST /oauth/token', 'GET /api/v2/orders'])
  })
})

describe('refresh-token races', () => {
  it('adopts the tokens another process stored when it lost the race, after one attempt', async () => {
    const env: Env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
    deviceLogin(env, {
      accessToken: 'expired-access-token',
      refreshToken: 'rt-first-1234',
      expiresAt: Date.now() - 1000,
    })
    let tokenCalls = 0
    const run = await runCli(['list', 'orders'], {
      env,
      fetch: async (input, init) => {
        if (new URL(String(input)).pathname !== '/oauth/token') return fetch(input, init)
        tokenCalls += 1
        // Meanwhile the other process rotated rt-first and stored the new pair.
        deviceLogin(env, {
          accessToken: acme.token,
          refreshToken: 'rt-second-5678',
          expiresAt: Date.now() + HOUR,
        })
        return oauthError('invalid_grant')
      },
    })
    expect(run.code).toBe(0)
    expect(tokenCalls).toBe(1)
    expect(calls(run)).toEqual(['POST /oauth/token', 'GET /api/v2/orders'])
    expect(run.requests[1]!.headers.get('authorization')).toBe(`Bearer ${acme.token}`)
    expect(stored(env).refreshToken).toBe('rt-second-5678')
  })

  it('exits 4 and asks for a new login when the refresh token is refused and nobody renewed it', async () => {
    const env: Env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
    deviceLogin(env, {
      accessToken: 'expired-access-token',
      refreshToken: 'rt-stale-1234',
      expiresAt: Date.now() - 1000,
    })
    const run = await runCli(['list', 'orders'], {
      env,
      fetch: async (input, init) =>
        new URL(String(input)).pathname === '/oauth/token' ? oauthError('invalid_grant') : fetch(input, init),
    })
    expect(run.code).toBe(4)
    expect(calls(run)).toEqual(['POST /oauth/token'])
    expect(run.stderr).toBe(`api: the login to ${server.url} has expired (invalid_grant); run: api login\n`)
  })

  it('uses the tokens another process renewed while this one waited for the lock, without asking', async () => {
    const env: Env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
    deviceLogin(env, {
      accessToken: 'expired-access-token',
      refreshToken: 'rt-old-1234',
      expiresAt: Date.now() - 1000,
    })
    const lock = join(env.XDG_CONFIG_HOME!, 'api', 'credentials.json.lock')
    await Bun.write(lock, '99999')
    let waits = 0
    const run = await runCli(['list', 'orders'], {
      env,
      sleep: async () => {
        waits += 1
        // The other process finishes its renewal and lets go of the lock.
        deviceLogin(env, {
          accessToken: acme.token,
          refreshToken: 'rt-new-5678',
          expiresAt: Date.now() + HOUR,
        })
        rmSync(lock, { force: true })
      },
    })
    expect(waits).toBe(1)
    expect(run.code).toBe(0)
    expect(calls(run)).toEqual(['GET /api/v2/orders'])
  })
})
