import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { systemPrincipal } from '../../server/admin/system.ts'
import { adminEngine } from '../../server/admin/users.ts'
import { createRecord } from '../../server/resources/writes.ts'
import { OTHERS_POLL_MS } from '../../server/store/change-stamp.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { example } from '../support/example.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

const products = example('products')

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

let server: TestServer
let shop: Tenant

beforeAll(async () => {
  server = await startTestServer()
  shop = await server.tenant()
})
afterAll(() => server.stop())

const lastModified = async () => (await shop.fetch('/api/v1/products')).headers.get('last-modified')
const nextSecond = () => Bun.sleep(1000 - (Date.now() % 1000) + 20)

describe('Last-Modified of a collection', () => {
  it('moves within OTHERS_POLL_MS when another process writes (another instance, an admin command)', async () => {
    const before = await lastModified()
    expect(await lastModified()).toBe(before)
    await nextSecond()
    // server.db is a second connection to the server's SQLite file, as another instance has.
    await createRecord(adminEngine(server.store), systemPrincipal(SCHEMA, shop.orgId), products, {
      name: 'Lamp',
      sku: 'LAMP-1',
      price: 1999,
      currency: 'EUR',
    })
    await Bun.sleep(OTHERS_POLL_MS + 20)
    const after = await lastModified()
    expect(after).not.toBe(before)
    expect(Date.parse(after!)).toBeGreaterThan(Date.parse(before!))
  })

  it('moves when this server writes', async () => {
    const before = await lastModified()
    await nextSecond()
    const created = await shop.fetch('/api/v1/products', {
      method: 'POST',
      json: { name: 'Desk', sku: 'DESK-1', price: 9900, currency: 'EUR' },
    })
    expect(created.status).toBe(201)
    expect(Date.parse((await lastModified())!)).toBeGreaterThan(Date.parse(before!))
  })
})
