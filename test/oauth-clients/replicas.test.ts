/**
 * The action `revoke` through one replica ends the client's tokens on every replica of one
 * database (a SQLite file, or PostgreSQL with Redis under `npm run test:postgres`), as
 * `api-server client revoke` does (test/admin/client-revoke.test.ts): the same store call, and the
 * same way for the others to learn of it.
 */
import { afterAll, beforeAll, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminDatabase, freePort, runOk, type ServeProcess, startServe } from '../admin/run.ts'
import { onPostgres } from '../support/backend.ts'
import { clientToken } from '../support/tokens.ts'

let dir: string
let db: string
let admin: string
let adminClientId: string
const replicas: ServeProcess[] = []

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'api-clients-'))
  db = await adminDatabase(dir, 'clients')
  await runOk(['org', 'create', '--name', 'Acme'], db)
  const made = JSON.parse(
    await runOk(['client', 'create', '--name', 'ops', '--org', 'Acme', '--json'], db),
  ) as {
    client_id: string
    client_secret: string
  }
  const redis =
    onPostgres && process.env.API_TEST_REDIS_URL ? ['--redis', process.env.API_TEST_REDIS_URL] : []
  // Replicas behind one public origin: the same issuer, each reached on its own port here.
  const port = freePort()
  const base = ['--db', db, '--base-url', `http://127.0.0.1:${port}`, '--rate-limit', '0', ...redis]
  for (const listen of [String(port), '0']) replicas.push(await startServe(['--port', listen, ...base]))
  admin = await clientToken(replicas[0]!.url, { id: made.client_id, secret: made.client_secret })
  adminClientId = made.client_id
})
afterAll(async () => {
  for (const replica of replicas) await replica.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** GET the organization's clients with `token` on each replica: their statuses. */
const statuses = (token: string) =>
  Promise.all(
    replicas.map(async (replica) => {
      const response = await fetch(`${replica.url}/api/v2/oauth-clients`, {
        headers: { Authorization: `Bearer ${token}` },
      })
      await response.body?.cancel()
      return response.status
    }),
  )

it("revoke through one replica refuses the client's token on both within a second", async () => {
  const created = await fetch(`${replicas[0]!.url}/api/v2/oauth-clients`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'worker', scopes: ['read:oauth-clients'] }),
  })
  expect(created.status).toBe(201)
  const client = (await created.json()) as { id: string; secret: string }
  // The token comes from the other replica: nothing of it is cached where the revoke lands.
  const token = await clientToken(replicas[1]!.url, { id: client.id, secret: client.secret })
  expect(await statuses(token)).toEqual([200, 200])

  const revoked = await fetch(`${replicas[0]!.url}/api/v2/oauth-clients/${client.id}/revoke`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${admin}` },
  })
  expect(revoked.status).toBe(200)
  const deadline = Date.now() + 1_000
  let now = await statuses(token)
  while (now.some((s) => s !== 401) && Date.now() < deadline) {
    await Bun.sleep(25)
    now = await statuses(token)
  }
  expect(now).toEqual([401, 401])
  // The admin's own client goes on.
  expect(await statuses(admin)).toEqual([200, 200])
})

it('agrees with the admin commands: a client they make, update and revoke reads the same through it', async () => {
  const get = async (id: string) => {
    const response = await fetch(`${replicas[1]!.url}/api/v2/oauth-clients/${id}`, {
      headers: { Authorization: `Bearer ${admin}` },
    })
    expect(response.status).toBe(200)
    return (await response.json()) as Record<string, unknown>
  }
  const args = ['client', 'create', '--name', 'spa', '--org', 'Acme', '--public', '--json']
  const spa = JSON.parse(
    await runOk([...args, '--redirect-uri', 'https://spa.example/cb', '--scope', 'read:products'], db),
  ) as { client_id: string }
  expect(await get(spa.client_id)).toMatchObject({
    name: 'spa',
    public: true,
    grantTypes: ['authorization_code', 'refresh_token'],
    redirectUris: ['https://spa.example/cb'],
    scopes: ['read:products'],
    revokedAt: null,
  })
  await runOk(['client', 'update', spa.client_id, '--scope', 'read:products write:products'], db)
  expect((await get(spa.client_id)).scopes).toEqual(['read:products', 'write:products'])
  await runOk(['client', 'revoke', spa.client_id], db)
  expect((await get(spa.client_id)).revokedAt).toBeString()
  // And the other way: what the resource makes, the admin listing shows.
  const listed = JSON.parse(await runOk(['client', 'list', '--org', 'Acme', '--json'], db)) as {
    data: { client_id: string }[]
  }
  expect(listed.data.map((c) => c.client_id)).toEqual(expect.arrayContaining([adminClientId, spa.client_id]))
  expect(listed.data.length).toBe(3)
})
