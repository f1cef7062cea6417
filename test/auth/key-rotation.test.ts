import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { decodeProtectedHeader, type JWK } from 'jose'
import { type App, createApp } from '../../server/app.ts'
import { rotateKey } from '../../server/auth/keys.ts'
import { type Database, migrateDatabase, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import { exampleSchema } from '../../shared/resources/index.ts'

// The app is driven through app.fetch with an injected clock, so that the key ring's one-minute
// cache and the hour a retired key stays published can be crossed without waiting.
const BASE = 'http://api.test'
let db: Database
let app: App
let now = Date.now()
let credentials: string

beforeAll(async () => {
  db = openDatabase(':memory:')
  await migrateDatabase(db, exampleSchema())
  const store = sqliteStore(db, exampleSchema())
  app = await createApp({ schema: store.schema, store, baseUrl: BASE, clock: () => now, log: () => {} })
  const { client, secret } = await store.clients.create({
    name: 'svc',
    orgId: (await store.orgs.create('Rot')).id,
    public: false,
  })
  credentials = btoa(`${client.id}:${secret}`)
})
afterAll(() => db.close())

async function issue(): Promise<string> {
  const response = await app.fetch(
    new Request(`${BASE}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${credentials}` },
      body: 'grant_type=client_credentials&scope=read:orders',
    }),
  )
  expect(response.status).toBe(200)
  return ((await response.json()) as { access_token: string }).access_token
}

const listOrders = (token: string) =>
  app.fetch(new Request(`${BASE}/api/v1/orders`, { headers: { Authorization: `Bearer ${token}` } }))

async function publishedKids(): Promise<string[]> {
  const response = await app.fetch(new Request(`${BASE}/.well-known/jwks.json`))
  const { keys } = (await response.json()) as { keys: JWK[] }
  for (const key of keys) expect(key).not.toHaveProperty('d')
  return keys.map((k) => k.kid!).sort()
}

describe('api-server keys rotate', () => {
  let oldToken: string
  let oldKid: string
  let newKid: string

  beforeAll(async () => {
    oldToken = await issue()
    oldKid = decodeProtectedHeader(oldToken).kid!
    newKid = await rotateKey(sqliteStore(db, exampleSchema()))
    // The server re-reads its keys at most once a minute (or on an unknown kid).
    now += 61_000
  })

  it('gives the new key a new kid', () => {
    expect(newKid).not.toBe(oldKid)
  })

  it('signs new tokens with the new key', async () => {
    const token = await issue()
    expect(decodeProtectedHeader(token).kid).toBe(newKid)
    expect((await listOrders(token)).status).toBe(200)
  })

  it('still accepts tokens signed with the old key', async () => {
    expect((await listOrders(oldToken)).status).toBe(200)
  })

  it('publishes both keys', async () => {
    expect(await publishedKids()).toEqual([oldKid, newKid].sort())
  })

  it('stops publishing the old key once its tokens have expired', async () => {
    now += 3600_000
    expect(await publishedKids()).toEqual([newKid])
    expect((await listOrders(oldToken)).status).toBe(401)
  })
})
