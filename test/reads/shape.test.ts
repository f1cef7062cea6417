import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { statementsOf } from '../graphql/support.ts'
import { clientOf, FORM as FORM_TYPE, JSON_TYPE, query, queryPage } from '../query-method/support.ts'
import {
  createComment,
  createLineItem,
  createOrder,
  createPost,
  createProduct,
  createUser,
  type Entity,
  expectError,
  readJson,
} from '../rest/fixtures.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

// biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by assertions, not types
type Loose = any

let server: TestServer
let acme: Tenant
let ann: Entity
const orders: Entity[] = []
const products: Entity[] = []

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  ann = await createUser(acme, { name: 'Ann' })
  for (let i = 0; i < 3; i++) products.push(await createProduct(acme, { name: `Mug ${i}` }))
  for (let i = 0; i < 6; i++) {
    const order = await createOrder(acme, { userId: ann.id, amount: 100 + i })
    for (const product of products) await createLineItem(acme, order.id, { productId: product.id })
    orders.push(order)
  }
})
afterAll(() => server.stop())

async function get(path: string, tenant = acme): Promise<Loose> {
  const response = await tenant.fetch(path)
  if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`)
  return await response.json()
}

describe('fields', () => {
  it('shows only the fields asked for, id always, in each version', async () => {
    const v1 = await get('/api/v1/orders?fields=status,amount,currency&limit=2')
    expect(v1.data).toHaveLength(2)
    for (const order of v1.data) expect(Object.keys(order)).toEqual(['id', 'status', 'amount', 'currency'])
    // v2 names v2's fields: amount is the money object, and currency is no field of its own.
    const v2 = await get('/api/v2/orders?fields=id,amount&limit=2')
    expect(v2.data[0]).toEqual({ id: orders[5]!.id, amount: { value: 105, currency: 'EUR' } })
    const error = await expectError(
      await acme.fetch('/api/v2/orders?fields=id,currency'),
      400,
      'BAD_REQUEST',
      ['fields'],
    )
    expect(error.error.details[0]!.message).toContain('currency')
  })

  it('keeps paginating with the fields of the first page', async () => {
    const first = await get('/api/v1/orders?fields=amount&limit=4')
    expect(first.pagination.next).toContain('fields=amount')
    const second = await get(first.pagination.next)
    expect(second.data.map((o: Entity) => Object.keys(o))).toEqual([
      ['id', 'amount'],
      ['id', 'amount'],
    ])
    expect(second.data.map((o: Entity) => o.amount)).toEqual([101, 100])
  })

  it('is 400 naming a misspelled field, also in snake_case', async () => {
    const error = await expectError(await acme.fetch('/api/v1/orders?fields=id,statsu'), 400, 'BAD_REQUEST', [
      'fields',
    ])
    expect(error.error.details[0]!.message).toContain('statsu')
    const snake = await get('/api/v1/orders?fields=user_id&limit=1')
    expect(Object.keys(snake.data[0])).toEqual(['id', 'userId'])
    await expectError(await acme.fetch('/api/v1/orders?fields='), 400, 'BAD_REQUEST', ['fields'])
    await expectError(await acme.fetch('/api/v1/orders?fields=id&fields=status'), 400, 'BAD_REQUEST', [
      'fields',
    ])
    await expectError(await acme.fetch('/api/v1/orders?fields=user.name'), 400, 'BAD_REQUEST', ['fields'])
  })

  it('selects only the fields asked for, and what the order of the page needs', async () => {
    await get('/api/v1/orders?limit=1') // warms the caches: the records' statement is what is counted
    const statements = await statementsOf(server.sql, () => get('/api/v1/orders?fields=status&sort=amount'))
    const page = statements.filter((sql) => /FROM orders\b/.test(sql))
    expect(page).toHaveLength(1)
    expect(page[0]).toStartWith('SELECT id, created_at, updated_at, status, amount FROM orders')
  })

  it('reads only the fields asked for of a single record, and still checks where it lives', async () => {
    const path = `/api/v1/orders/${orders[0]!.id}?fields=status`
    await get(`/api/v1/orders/${orders[1]!.id}?fields=amount`) // warms the caches, not this answer's
    const statements = await statementsOf(server.sql, () => get(path))
    const read = statements.filter((sql) => /FROM orders\b/.test(sql))
    expect(read).toEqual([
      expect.stringMatching(/^SELECT id, created_at, updated_at, status, org_id FROM orders\b/),
    ])
    // Another organization's record is still 403, and a child under another parent still 404.
    const other = await server.tenant()
    await expectError(await other.fetch(path), 403, 'FORBIDDEN')
    const item = (await get(`/api/v1/orders/${orders[0]!.id}/line-items?limit=1`)).data[0]
    expect(await get(`/api/v1/orders/${orders[0]!.id}/line-items/${item.id}?fields=quantity`)).toEqual({
      id: item.id,
      quantity: item.quantity,
    })
    await expectError(
      await acme.fetch(`/api/v1/orders/${orders[1]!.id}/line-items/${item.id}?fields=quantity`),
      404,
      'NOT_FOUND',
    )
  })

  it("reads what an event's visibility needs however few fields are asked", async () => {
    const [event] = (await get(`/api/v1/events?resource_id=${orders[0]!.id}&limit=1`)).data
    expect(await get(`/api/v1/events/${event.id}?fields=type`)).toEqual({
      id: event.id,
      type: 'order.created',
    })
    // A token that may read events but not orders is refused an order's event, sparse or whole.
    const eventsOnly = await clientOf(server, acme.orgId, ['read:events'])
    for (const query of ['', '?fields=type']) {
      const refused = await eventsOnly.fetch(`/api/v1/events/${event.id}${query}`)
      expect(refused.status).toBe(403)
      expect(JSON.stringify(await refused.json())).toContain('read:orders')
    }
  })

  it('tags the representation sent: another field list is another ETag, and 304 works on it', async () => {
    const whole = await acme.fetch(`/api/v1/orders/${orders[0]!.id}`)
    const sparse = await acme.fetch(`/api/v1/orders/${orders[0]!.id}?fields=status`)
    expect(await sparse.json()).toEqual({ id: orders[0]!.id, status: 'pending' })
    const tag = sparse.headers.get('etag')!
    expect(tag).not.toBe(whole.headers.get('etag'))
    const again = await acme.fetch(`/api/v1/orders/${orders[0]!.id}?fields=status`, {
      headers: { 'If-None-Match': tag },
    })
    expect(again.status).toBe(304)
    const list = await acme.fetch('/api/v1/orders?fields=status')
    const listAgain = await acme.fetch('/api/v1/orders?fields=status', {
      headers: { 'If-None-Match': list.headers.get('etag')! },
    })
    expect(listAgain.status).toBe(304)
  })

  it('singletons take fields and expand, and nothing else', async () => {
    const order = await get(`/api/v2/orders/${orders[0]!.id}?fields=amount,user.name&expand=user`)
    expect(order).toEqual({
      id: orders[0]!.id,
      amount: { value: 100, currency: 'EUR' },
      user: { id: ann.id, name: 'Ann' },
    })
    const nested = await get(`/api/v1/orders/${orders[0]!.id}/line-items?fields=quantity&limit=1`)
    expect(Object.keys(nested.data[0])).toEqual(['id', 'quantity'])
    await expectError(await acme.fetch(`/api/v1/orders/${orders[0]!.id}?limit=1`), 400, 'BAD_REQUEST', [
      'limit',
    ])
  })
})

describe('expand', () => {
  it('expands a reference as the record it names', async () => {
    const page = await get('/api/v1/orders?expand=user&limit=2')
    for (const order of page.data) {
      expect(order.userId).toBe(ann.id)
      expect(order.user).toEqual(await get(`/api/v1/users/${ann.id}`))
    }
  })

  it('expands a nested collection as its first page, with pagination that continues it', async () => {
    const page = await get('/api/v2/orders?expand=lineItems&expand_limit=2&limit=1')
    const items = page.data[0].lineItems
    expect(items.data).toHaveLength(2)
    expect(items.data[0].unitPrice).toBe(500)
    expect(items.pagination.limit).toBe(2)
    expect(items.pagination.hasMore).toBe(true)
    expect(items.pagination.next).toStartWith(`/api/v2/orders/${page.data[0].id}/line-items?limit=2`)
    const rest = await get(items.pagination.next)
    expect(rest.data).toHaveLength(1)
    const all = await get(`/api/v2/orders/${page.data[0].id}/line-items`)
    expect([...items.data, ...rest.data]).toEqual(all.data)
    const whole = await get('/api/v1/orders?expand=line_items&limit=1')
    expect(whole.data[0].lineItems.data).toHaveLength(3)
    expect(whole.data[0].lineItems.pagination).toEqual({
      limit: 20,
      hasMore: false,
      nextCursor: null,
      next: null,
    })
  })

  it('reaches two levels, with fields inside, in one statement per relation whatever the page size', async () => {
    const path = (limit: number) =>
      `/api/v2/orders?limit=${limit}&expand=user,lineItems.product&fields=amount,user.name,lineItems.quantity,lineItems.product.name`
    await get(path(1))
    let body: Loose
    const many = await statementsOf(server.sql, async () => {
      body = await get(path(6))
    })
    expect(body.data).toHaveLength(6)
    for (const order of body.data) {
      expect(Object.keys(order)).toEqual(['id', 'amount', 'user', 'lineItems'])
      expect(order.user).toEqual({ id: ann.id, name: 'Ann' })
      expect(order.lineItems.data).toHaveLength(3)
      for (const item of order.lineItems.data) {
        expect(Object.keys(item)).toEqual(['id', 'quantity', 'product'])
        expect(item.product.name).toStartWith('Mug ')
        expect(Object.keys(item.product)).toEqual(['id', 'name'])
      }
    }
    // The page, the users, the line items of every order, their products (besides reads of the
    // event log: the response cache's stamp and the last changes, on PostgreSQL).
    const relations = (statements: string[]) =>
      statements.filter((sql) => /^SELECT/.test(sql) && !/FROM events/.test(sql))
    expect(relations(many)).toHaveLength(4)
    // A page size not read yet: the response cache has no answer for it.
    const few = await statementsOf(server.sql, () => get(path(2)))
    expect(few).toHaveLength(many.length)
    // The nested page's next link keeps its own fields and expansion.
    const small = await get(
      '/api/v1/orders?limit=1&expand=lineItems.product&expand_limit=1&fields=lineItems.quantity,lineItems.product.sku',
    )
    const next = small.data[0].lineItems.pagination.next
    expect(next).toContain('fields=id,quantity,product.id,product.sku')
    expect(next).toContain('expand=product')
    const continued = await get(next)
    expect(Object.keys(continued.data[0])).toEqual(['id', 'quantity', 'product'])
  })

  it('dates an answer by its expanded records too, so If-Modified-Since sees them change', async () => {
    const renamed = await acme.fetch(`/api/v1/users/${ann.id}`, { method: 'PATCH', json: { name: 'Ann' } })
    const user = (await renamed.json()) as Entity
    const changed = new Date(user.updatedAt as string).toUTCString()
    for (const path of ['/api/v1/orders?expand=user', `/api/v1/orders/${orders[0]!.id}?expand=user`]) {
      expect((await acme.fetch(path)).headers.get('last-modified')).toBe(changed)
    }
  })

  it('is 400 naming expand for an unknown relation or a third level', async () => {
    const unknown = await expectError(
      await acme.fetch('/api/v1/orders?expand=customer'),
      400,
      'BAD_REQUEST',
      ['expand'],
    )
    expect(unknown.error.details[0]!.message).toContain('customer')
    await expectError(await acme.fetch('/api/v1/orders?expand=lineItems.product.x'), 400, 'BAD_REQUEST', [
      'expand',
    ])
    await expectError(await acme.fetch('/api/v1/orders?expand_limit=5'), 400, 'BAD_REQUEST', ['expand_limit'])
    await expectError(
      await acme.fetch('/api/v1/orders?expand=lineItems&expand_limit=101'),
      400,
      'BAD_REQUEST',
      ['expand_limit'],
    )
    await expectError(
      await acme.fetch('/api/v1/orders?expand=user&confirm=orders', { method: 'DELETE' }),
      400,
      'BAD_REQUEST',
      ['expand'],
    )
  })

  it('needs the read scope of what it expands: 403 naming the relation', async () => {
    const reader = await server.tenant({ scope: ['read:posts', 'read:comments'] })
    const author = await createUser(acme)
    expect(author.id).toBeString()
    const orderReader = await server.tenant({ scope: ['read:orders'] })
    const refused = await expectError(
      await orderReader.fetch('/api/v1/orders?expand=lineItems'),
      403,
      'FORBIDDEN',
      ['expand'],
    )
    expect(refused.error.details[0]!.message).toContain('lineItems')
    expect(refused.error.details[0]!.message).toContain('read:line-items')
    await expectError(await reader.fetch('/api/v1/posts?expand=author'), 403, 'FORBIDDEN', ['expand'])
    // A post of the reader's own organization, with its comments, expands without read:users.
    const full = await server.tenant()
    const post = await createPost(full)
    await createComment(full, post.id)
    const token = await server.tenant({ scope: ['read:posts', 'read:comments'] })
    expect((await token.fetch('/api/v1/posts?expand=comments')).status).toBe(200)
    const page = await get('/api/v1/posts?expand=comments,author&fields=title,comments.text', full)
    expect(page.data[0].comments.data[0]).toEqual({ id: expect.any(String), text: 'Nice' })
    expect(page.data[0].author.name).toBe('Ann')
  })
})

describe('QUERY and /search', () => {
  it('take fields and expand in form and JSON bodies', async () => {
    const form = await queryPage<Loose>(
      acme,
      '/api/v2/orders',
      FORM_TYPE,
      'fields=amount&expand=user&limit=1',
    )
    expect(Object.keys(form.data[0])).toEqual(['id', 'amount', 'user'])
    expect(form.data[0].user.id).toBe(ann.id)
    const json = await queryPage<Loose>(
      acme,
      '/api/v1/orders',
      JSON_TYPE,
      JSON.stringify({ fields: ['status', 'lineItems.quantity'], expand: 'lineItems', limit: 1 }),
    )
    expect(Object.keys(json.data[0])).toEqual(['id', 'status', 'lineItems'])
    expect(json.data[0].lineItems.data[0]).toEqual({ id: expect.any(String), quantity: 2 })
    const bad = await query(acme, '/api/v1/orders', JSON_TYPE, JSON.stringify({ fields: 'nope' }))
    expect(bad.status).toBe(422)
    expect(((await readJson(bad)) as Loose).error.details[0].field).toBe('fields')
  })

  it('/search takes them with a collection, and fields alone across collections', async () => {
    const one = await get(
      '/api/v1/search?collection=orders&filter=amount%20%3E%3D%20104&fields=amount&expand=user',
    )
    expect(one.data.map((o: Entity) => o.amount)).toEqual([105, 104])
    expect(one.data[0].user.id).toBe(ann.id)
    const across = await get('/api/v1/search?q=mug&fields=name')
    expect(across.data.length).toBeGreaterThan(0)
    for (const hit of across.data) expect(Object.keys(hit.record)).toEqual(['id', 'name'])
    await expectError(await acme.fetch('/api/v1/search?q=mug&expand=user'), 400, 'BAD_REQUEST', ['expand'])
    await expectError(await acme.fetch('/api/v1/search?q=mug&fields=nope'), 400, 'BAD_REQUEST', ['fields'])
  })

  it('/search across collections reads of each collection only the asked fields it has', async () => {
    await get('/api/v2/search?q=mug') // warms the caches: the records' statements are what is counted
    const path = '/api/v2/search?q=mug&fields=name,price'
    let answer: Loose | undefined
    const statements = await statementsOf(server.sql, async () => {
      answer = await get(path)
    })
    const selected = Object.fromEntries(
      statements
        .map((sql) => /^SELECT (.+?) FROM (\w+)\b/.exec(sql))
        .filter((match) => match !== null)
        .map((match) => [match[2], match[1]]),
    )
    // v2's price is an object of two base fields, both read; a collection without either field
    // reads only what orders the hits.
    expect(selected).toEqual({
      users: 'id, created_at, updated_at, name',
      addresses: 'id, created_at, updated_at',
      products: 'id, created_at, updated_at, name, price, currency',
      posts: 'id, created_at, updated_at',
      comments: 'id, created_at, updated_at',
    })
    const products = answer!.data.filter((hit: Loose) => hit.collection === 'products')
    expect(products.length).toBeGreaterThan(0)
    for (const hit of products) {
      expect(Object.keys(hit.record)).toEqual(['id', 'name', 'price'])
      expect(hit.record.price).toEqual({ value: expect.any(Number), currency: expect.any(String) })
    }
  })
})
