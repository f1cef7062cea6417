/**
 * `api-server keys rotate` reaches every replica within a minute: two servers on one database (the
 * SQLite file in `npm test`, PostgreSQL in `npm run test:postgres`), each with its own key ring,
 * and the real admin command in a process of its own. The two are driven through app.fetch with
 * one injected clock, so that the key ring's minute can be crossed without waiting for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { decodeProtectedHeader, type JWK } from 'jose'
import { type App, createApp } from '../../server/app.ts'
import { openStore } from '../../server/store/open.ts'
import type { Store } from '../../server/store/store.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { runOk } from '../admin/run.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

const BASE = 'http://api.test'
let now = Date.now()

describe('api-server keys rotate on two replicas', () => {
  let server: TestServer
  const stores: Store[] = []
  const apps: App[] = []
  let credentials: string
  let oldToken: string
  let oldKid: string

  const issue = async (app: App): Promise<string> => {
    const response = await app.fetch(
      new Request(`${BASE}/oauth/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${credentials}`,
        },
        body: 'grant_type=client_credentials&scope=read:orders',
      }),
    )
    expect(response.status).toBe(200)
    return ((await response.json()) as { access_token: string }).access_token
  }
  const listOrders = async (app: App, token: string) =>
    (await app.fetch(new Request(`${BASE}/api/v1/orders`, { headers: { Authorization: `Bearer ${token}` } })))
      .status
  const publishedKids = async (app: App): Promise<string[]> => {
    const { keys } = (await (await app.fetch(new Request(`${BASE}/.well-known/jwks.json`))).json()) as {
      keys: JWK[]
    }
    return keys.map((k) => k.kid!).sort()
  }

  beforeAll(async () => {
    // A migrated database; its own server is not used here.
    server = await startTestServer()
    const { client, secret } = await server.store.clients.create({
      name: 'svc',
      orgId: (await server.store.orgs.create('Rot')).id,
      public: false,
    })
    credentials = btoa(`${client.id}:${secret}`)
    for (let i = 0; i < 2; i++) {
      const store = openStore(server.dbPath, exampleSchema())
      stores.push(store)
      apps.push(
        await createApp({ schema: store.schema, store, baseUrl: BASE, clock: () => now, log: () => {} }),
      )
    }
    // Each replica has read its keys: one issues a token, the other verifies it.
    oldToken = await issue(apps[0]!)
    oldKid = decodeProtectedHeader(oldToken).kid!
    expect(await listOrders(apps[1]!, oldToken)).toBe(200)
    expect(decodeProtectedHeader(await issue(apps[1]!)).kid).toBe(oldKid)
    await runOk(['keys', 'rotate'], server.dbPath)
  }, 60_000)
  afterAll(async () => {
    for (const app of apps) app.close()
    for (const store of stores) await store.close()
    await server?.stop()
  })

  it("signs with the new key on every replica a minute after the rotation, and each takes the other's tokens", async () => {
    // The key rings were read before the rotation; a minute later (the most they keep them) each reads again.
    now += 60_001
    const tokens = await Promise.all(apps.map((app) => issue(app)))
    const kids = tokens.map((token) => decodeProtectedHeader(token).kid!)
    expect(kids[0]).not.toBe(oldKid)
    expect(kids[1]).toBe(kids[0]!)
    expect(await listOrders(apps[1]!, tokens[0]!)).toBe(200)
    expect(await listOrders(apps[0]!, tokens[1]!)).toBe(200)
    for (const app of apps) {
      expect(await publishedKids(app)).toEqual([oldKid, kids[0]!].sort())
      // Tokens of the old key stay good until they expire.
      expect(await listOrders(app, oldToken)).toBe(200)
    }
  })
})
