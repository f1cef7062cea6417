import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { created, type Env, loggedInEnv, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli, tempDir } from './harness.ts'

let server: TestServer
let tenant: Tenant
let env: Env
let userId: string
let parents: Record<string, string>

beforeAll(async () => {
  server = await startTestServer()
  tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
  userId = await seedUser(tenant)
  const product = await created(
    await tenant.fetch('/api/v1/products', {
      method: 'POST',
      json: { name: 'Lamp', sku: 'LAMP-1', price: 1999, currency: 'EUR' },
    }),
  )
  const order = await created(
    await tenant.fetch('/api/v1/orders', { method: 'POST', json: { userId, amount: 1999, currency: 'EUR' } }),
  )
  const post = await created(
    await tenant.fetch('/api/v1/posts', {
      method: 'POST',
      json: { authorId: userId, title: 'T', body: 'B' },
    }),
  )
  parents = {
    users: userId,
    orders: order.id as string,
    posts: post.id as string,
    product: product.id as string,
  }
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

type Json = Record<string, unknown>

/** For each collection: where to create, the fields to send, a change (PATCH) and a whole record (PUT). */
const collections: {
  name: string
  spec: () => string
  fields: () => string[]
  update: [string, unknown]
  replace: () => string[]
}[] = [
  {
    name: 'users',
    spec: () => 'users',
    fields: () => [`name=Lin`, `email=lin-${crypto.randomUUID().slice(0, 6)}@example.com`, 'role=viewer'],
    update: ['role', 'admin'],
    replace: () => ['name=Lin B', `email=linb-${crypto.randomUUID().slice(0, 6)}@example.com`],
  },
  {
    name: 'products',
    spec: () => 'products',
    fields: () => [
      'name=Desk',
      `sku=D-${crypto.randomUUID().slice(0, 6)}`,
      'price[value]:=25000',
      'price[currency]=EUR',
    ],
    update: ['active', false],
    replace: () => [
      'name=Desk 2',
      `sku=D2-${crypto.randomUUID().slice(0, 6)}`,
      'price[value]:=1',
      'price[currency]=USD',
    ],
  },
  {
    name: 'orders',
    spec: () => 'orders',
    fields: () => [`userId=${userId}`, 'amount[value]:=1200', 'amount[currency]=EUR', 'status=paid'],
    update: ['status', 'shipped'],
    replace: () => [`userId=${userId}`, 'amount:={"value": 99, "currency": "USD"}'],
  },
  {
    name: 'posts',
    spec: () => 'posts',
    fields: () => [`authorId=${userId}`, 'title=Hello', 'body=World', 'published:=true'],
    update: ['title', 'Hello again'],
    replace: () => [`authorId=${userId}`, 'title=Replaced'],
  },
  {
    name: 'users/ID/addresses',
    spec: () => `users/${parents.users}/addresses`,
    fields: () => ['line1=1 Main St', 'city=Lyon', 'postalCode=01234', 'country=FR'],
    update: ['city', 'Paris'],
    replace: () => ['line1=2 Side St', 'city=Nice', 'postalCode=06000', 'country=FR'],
  },
  {
    name: 'orders/ID/line-items',
    spec: () => `orders/${parents.orders}/line-items`,
    fields: () => [`productId=${parents.product}`, 'quantity:=2', 'unitPrice:=1999'],
    update: ['quantity', 3],
    replace: () => [`productId=${parents.product}`, 'quantity:=1', 'unitPrice:=10'],
  },
  {
    name: 'posts/ID/comments',
    spec: () => `posts/${parents.posts}/comments`,
    fields: () => [`authorId=${userId}`, 'text=Nice'],
    update: ['text', 'Edited'],
    replace: () => [`authorId=${userId}`, 'text=Rewritten'],
  },
]

describe('api create / get / update / replace / delete', () => {
  for (const { name, spec, fields, update, replace } of collections) {
    it(`creates, reads, changes, replaces and deletes a record of ${name}`, async () => {
      const create = await runCli(['create', spec(), ...fields()], { env })
      expect(create.stderr).toBe('')
      expect(create.code).toBe(0)
      const record = JSON.parse(create.stdout) as Json
      expect(create.requests[0]!.method).toBe('POST')
      expect(create.requests[0]!.url.pathname).toBe(`/api/v2/${spec()}`)
      const collection = spec().split('/').at(-1)!

      const get = await runCli(['get', collection, record.id as string], { env })
      expect(JSON.parse(get.stdout)).toEqual(record)
      const getNested = await runCli(['get', `${spec()}/${record.id}`], { env })
      expect(JSON.parse(getNested.stdout)).toEqual(record)

      const [field, value] = update
      const item = typeof value === 'string' ? `${field}=${value}` : `${field}:=${JSON.stringify(value)}`
      const patch = await runCli(['update', collection, record.id as string, item], { env })
      expect(patch.requests[0]!.method).toBe('PATCH')
      expect(JSON.parse(patch.requests[0]!.body!)).toEqual({ [field]: value })
      expect((JSON.parse(patch.stdout) as Json)[field]).toEqual(value)

      const put = await runCli(['replace', `${collection}/${record.id}`, ...replace()], { env })
      expect(put.stderr).toBe('')
      expect(put.requests[0]!.method).toBe('PUT')
      expect(JSON.parse(put.stdout)).toMatchObject({ id: record.id })

      const remove = await runCli(['delete', collection, record.id as string], { env })
      expect(remove.code).toBe(0)
      expect(remove.stdout).toBe('')
      const gone = await runCli(['get', collection, record.id as string], { env })
      expect(gone.code).toBe(1)
      expect(gone.stderr).toContain('NOT_FOUND (404)')
    })
  }
})

describe('api create fields', () => {
  it('sends key=value as strings and key:=json as JSON values', async () => {
    const sku = `J-${crypto.randomUUID().slice(0, 6)}`
    const run = await runCli(
      [
        'create',
        'products',
        'name=007',
        `sku=${sku}`,
        'price[value]:=1999',
        'price[currency]=EUR',
        'active:=false',
        'description:=null',
      ],
      { env },
    )
    expect(run.code).toBe(0)
    expect(JSON.parse(run.requests[0]!.body!)).toEqual({
      name: '007',
      sku,
      price: { value: 1999, currency: 'EUR' },
      active: false,
      description: null,
    })
    expect(run.requests[0]!.headers.get('content-type')).toBe('application/json')
  })

  const dataSources: { name: string; args: (body: string) => string[]; stdin?: (body: string) => string }[] =
    [
      { name: '--data JSON', args: (body) => ['--data', body] },
      {
        name: '--data @file.json',
        args: (body) => {
          const file = join(tempDir(), 'order.json')
          writeFileSync(file, body)
          return ['--data', `@${file}`]
        },
      },
      { name: '--data @- (standard input)', args: () => ['--data', '@-'], stdin: (body) => body },
    ]
  for (const { name, args, stdin } of dataSources) {
    it(`takes the whole body from ${name}`, async () => {
      const amount = { value: 4200, currency: 'EUR' }
      const body = JSON.stringify({ userId, amount, status: 'paid' })
      const run = await runCli(['create', 'orders', ...args(body)], { env, stdin: stdin?.(body) })
      expect(run.stderr).toBe('')
      expect(JSON.parse(run.stdout)).toMatchObject({ userId, amount, status: 'paid' })
      expect(JSON.parse(run.requests[0]!.body!)).toEqual(JSON.parse(body))
    })
  }

  const usageErrors: { args: string[]; message: string }[] = [
    { args: ['create', 'orders', 'amount:=abc'], message: 'the value of amount is not JSON' },
    { args: ['create', 'orders', 'amount'], message: '"amount" is not a field' },
    { args: ['create', 'orders', 'a=1', '--data', '{}'], message: 'give fields or --data, not both' },
    { args: ['create', 'orders', '--data', '{nope'], message: '--data is not valid JSON' },
    { args: ['create', 'orders', '--data', '[1]'], message: '--data must be a JSON object' },
    {
      args: ['create', 'orders', '--data', '@/nonexistent/x.json'],
      message: 'cannot read /nonexistent/x.json',
    },
    { args: ['create', 'orders/ord_x'], message: 'api create takes a collection' },
    { args: ['get', 'orders'], message: 'api get needs a record id' },
    { args: ['update', 'orders', 'status=paid'], message: 'api update needs a record id' },
    { args: ['get', 'posts/pst_x/orders/ord_y'], message: 'orders is not nested under posts' },
  ]
  for (const { args, message } of usageErrors) {
    it(`exits 2 before any request: api ${args.join(' ')}`, async () => {
      const run = await runCli(args, { env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(message)
      expect(run.requests).toHaveLength(0)
      expect(run.stdout).toBe('')
    })
  }

  it('shows every invalid field of a 422 on stderr and exits 1', async () => {
    const run = await runCli(
      ['create', 'orders', `userId=${userId}`, 'amount[value]:=-5', 'amount[currency]=EURO'],
      { env },
    )
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('VALIDATION_ERROR (422)')
    // v2 names its own fields: the money object's parts, never v1's top-level currency.
    expect(run.stderr).toMatch(/^ {2}amount\.value: .+$/m)
    expect(run.stderr).toMatch(/^ {2}amount\.currency: .+$/m)
  })
})

describe('api create Idempotency-Key', () => {
  it('sends a fresh Idempotency-Key with each create', async () => {
    const keys: string[] = []
    for (let i = 0; i < 2; i++) {
      const run = await runCli(
        ['create', 'orders', `userId=${userId}`, 'amount[value]:=1', 'amount[currency]=EUR'],
        { env },
      )
      keys.push(run.requests[0]!.headers.get('idempotency-key')!)
    }
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/)
    expect(keys[1]).not.toBe(keys[0])
  })

  it('replays the first answer for the same --idempotency-key instead of creating twice', async () => {
    const args = [
      'create',
      'orders',
      `userId=${userId}`,
      'amount[value]:=777',
      'amount[currency]=EUR',
      '--idempotency-key',
      'ci-777',
    ]
    const first = await runCli(args, { env })
    const second = await runCli(args, { env })
    expect(second.requests[0]!.headers.get('idempotency-key')).toBe('ci-777')
    expect(JSON.parse(second.stdout)).toEqual(JSON.parse(first.stdout))
    const list = await runCli(['list', 'orders', '--amount', '777'], { env })
    expect(JSON.parse(list.stdout)).toHaveLength(1)
  })

  it('sends --if-match on update and shows the 412 when the record changed', async () => {
    const order = JSON.parse(
      (
        await runCli(['create', 'orders', `userId=${userId}`, 'amount[value]:=5', 'amount[currency]=EUR'], {
          env,
        })
      ).stdout,
    ) as Json
    const run = await runCli(
      ['update', 'orders', order.id as string, 'status=paid', '--if-match', '"stale"'],
      {
        env,
      },
    )
    expect(run.requests[0]!.headers.get('if-match')).toBe('"stale"')
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('PRECONDITION_FAILED (412)')
  })
})
