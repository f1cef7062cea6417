/**
 * `api-server client revoke CLIENT` (docs/operations.md, "Admin commands") against two replicas
 * of one database (a SQLite file, or PostgreSQL under `npm run test:postgres`): the client's access
 * and refresh tokens stop working on both within a second, as a revoked token does, and it gets no
 * new ones. Also `client update --scope` and `user set-password` as the token endpoint and the
 * login page then see them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as oidc from 'openid-client'
import { authorizeByHttp, PageAgent, pkce } from '../oauth/support.ts'
import { clientToken } from '../support/tokens.ts'
import { adminDatabase, freePort, runAdmin, runOk, type ServeProcess, startServe } from './run.ts'

const REDIRECT = 'http://127.0.0.1:6000/callback'

let dir: string
let db: string
let base: string
const replicas: ServeProcess[] = []

const json = async (...args: string[]) =>
  JSON.parse(await runOk([...args, '--json'], db)) as Record<string, string>

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-revoke-'))
  db = await adminDatabase(dir, 'revoke')
  await runOk(['org', 'create', '--name', 'Acme'], db)
  await runOk(
    [
      'user',
      'create',
      '--org',
      'Acme',
      '--email',
      'ann@acme.example',
      '--name',
      'Ann',
      '--role',
      'admin',
      '--password-stdin',
    ],
    db,
    { stdin: 'first password\n' },
  )
  const port = freePort()
  base = `http://127.0.0.1:${port}`
  // Replicas behind one public origin: the same issuer, each reached on its own port here.
  for (const listen of [String(port), '0'])
    replicas.push(await startServe(['--port', listen, '--db', db, '--base-url', base, '--rate-limit', '0']))
})
afterAll(async () => {
  for (const replica of replicas) await replica.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** GET /api/v2/orders with the token on each replica: their statuses. */
const statuses = (token: string) =>
  Promise.all(
    replicas.map(async (replica) => {
      const response = await fetch(`${replica.url}/api/v2/orders`, {
        headers: { Authorization: `Bearer ${token}` },
      })
      await response.body?.cancel()
      return response.status
    }),
  )

/** Waits until every replica refuses the token; the contract allows a second (revocations: 250 ms polls). */
async function refusedEverywhere(token: string): Promise<number[]> {
  const deadline = Date.now() + 2_000
  for (;;) {
    const now = await statuses(token)
    if (now.every((s) => s === 401) || Date.now() > deadline) return now
    await Bun.sleep(50)
  }
}

/** A token request to each replica: their statuses and OAuth error codes. */
const tokenRequests = (body: Record<string, string>, authorization?: string) =>
  Promise.all(
    replicas.map(async (replica) => {
      const response = await fetch(`${replica.url}/oauth/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          ...(authorization ? { Authorization: authorization } : {}),
        },
        body: new URLSearchParams(body).toString(),
      })
      return [response.status, ((await response.json()) as { error?: string }).error]
    }),
  )

/** Logs in through the pages as a person would (authorization code with PKCE); the tokens. */
async function login(clientId: string, password: string) {
  const config = await oidc.discovery(new URL(base), clientId, undefined, oidc.None(), {
    algorithm: 'oauth2',
    execute: [oidc.allowInsecureRequests],
  })
  const { verifier, challenge, state } = await pkce()
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  })
  const callback = await authorizeByHttp(new PageAgent(base), url, { email: 'ann@acme.example', password })
  return oidc.authorizationCodeGrant(config, new URL(callback), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  })
}

describe('api-server client revoke', () => {
  it("refuses a confidential client's tokens on every replica, and gives it no new one", async () => {
    const revoked = await json('client', 'create', '--name', 'billing', '--org', 'Acme')
    const other = await json('client', 'create', '--name', 'shipping', '--org', 'Acme')
    const token = await clientToken(base, { id: revoked.client_id!, secret: revoked.client_secret! })
    const otherToken = await clientToken(base, { id: other.client_id!, secret: other.client_secret! })
    expect(await statuses(token)).toEqual([200, 200])

    const run = await runAdmin(['client', 'revoke', revoked.client_id!], db)
    expect(run).toEqual({
      status: 0,
      stdout: `revoked client billing (${revoked.client_id}): its tokens stop working, and it gets no new ones\n`,
      stderr: '',
    })

    expect(await refusedEverywhere(token)).toEqual([401, 401])
    const basic = `Basic ${btoa(`${revoked.client_id}:${revoked.client_secret}`)}`
    expect(await tokenRequests({ grant_type: 'client_credentials' }, basic)).toEqual([
      [401, 'invalid_client'],
      [401, 'invalid_client'],
    ])
    // Another client of the organization goes on.
    expect(await statuses(otherToken)).toEqual([200, 200])
    const listed = (await json('client', 'list', '--org', 'Acme')) as unknown as {
      data: { client_id: string; revokedAt: string | null }[]
    }
    expect(listed.data.map((c) => [c.client_id, c.revokedAt !== null])).toEqual([
      [revoked.client_id!, true],
      [other.client_id!, false],
    ])
    // Again: nothing changes, and it says so.
    const again = await runAdmin(['client', 'revoke', revoked.client_id!], db)
    expect(again).toMatchObject({
      status: 0,
      stdout: `client billing (${revoked.client_id}) was revoked already\n`,
    })
  })

  it("refuses a user's access and refresh tokens of a revoked public client", async () => {
    await runOk(
      ['user', 'set-password', '--org', 'Acme', '--email', 'ann@acme.example', '--password-stdin'],
      db,
      {
        stdin: 'a new password\n',
      },
    )
    const web = await json(
      'client',
      'create',
      '--name',
      'web',
      '--org',
      'Acme',
      '--public',
      '--grant-types',
      'authorization_code,refresh_token',
      '--redirect-uri',
      REDIRECT,
    )
    // user set-password: the new password logs in.
    const tokens = await login(web.client_id!, 'a new password')
    expect(await statuses(tokens.access_token)).toEqual([200, 200])

    await runOk(['client', 'revoke', web.client_id!], db)

    expect(await refusedEverywhere(tokens.access_token)).toEqual([401, 401])
    expect(
      await tokenRequests({
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: web.client_id!,
      }),
    ).toEqual([
      [401, 'invalid_client'],
      [401, 'invalid_client'],
    ])
    // Its grant went with it: to a live client of the organization the refresh token is inactive.
    const service = await json('client', 'create', '--name', 'introspector', '--org', 'Acme')
    const introspected = await fetch(`${replicas[1]!.url}/oauth/introspect`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${btoa(`${service.client_id}:${service.client_secret}`)}`,
      },
      body: new URLSearchParams({ token: tokens.refresh_token! }).toString(),
    })
    expect(await introspected.json()).toEqual({ active: false })
  })
})

describe('api-server client update --scope', () => {
  it('lets a client ask for scopes it could not before, from the next token on', async () => {
    const old = await json('client', 'create', '--name', 'old', '--org', 'Acme', '--scope', 'read:orders')
    const basic = `Basic ${btoa(`${old.client_id}:${old.client_secret}`)}`
    const ask = { grant_type: 'client_credentials', scope: 'read:orders write:orders' }
    expect(await tokenRequests(ask, basic)).toEqual([
      [400, 'invalid_scope'],
      [400, 'invalid_scope'],
    ])
    await runOk(['client', 'update', old.client_id!, '--scope', 'read:orders write:orders'], db)
    expect(await tokenRequests(ask, basic)).toEqual([
      [200, undefined],
      [200, undefined],
    ])
  })
})
