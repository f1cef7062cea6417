import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startTestServer, type TestServer } from '../support/server.ts'
import { type Env, loggedInEnv } from './fixtures.ts'
import { removeTempDirs, runCli, tempDir } from './harness.ts'

let server: TestServer
let env: Env

beforeAll(async () => {
  server = await startTestServer()
  env = await loggedInEnv(server, await server.tenant())
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

const product = () => ({
  name: 'Lamp',
  sku: `L-${crypto.randomUUID().slice(0, 8)}`,
  price: { value: 1999, currency: 'EUR' },
})

describe('api request METHOD PATH', () => {
  it('sends an authenticated GET and prints the JSON answer', async () => {
    const run = await runCli(['request', 'GET', '/api/v2/products?limit=1'], { env })
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ data: [], pagination: { limit: 1 } })
    expect(run.requests[0]!.headers.get('authorization')).toStartWith('Bearer ')
    expect(run.requests[0]!.url.search).toBe('?limit=1')
  })

  it('builds a JSON body from key=value and key:=json items', async () => {
    const { name, sku } = product()
    const run = await runCli(
      [
        'request',
        'post',
        '/api/v2/products',
        `name=${name}`,
        `sku=${sku}`,
        'price[value]:=1999',
        'price[currency]=EUR',
      ],
      { env },
    )
    expect(run.code).toBe(0)
    const sent = run.requests[0]!
    expect(sent.method).toBe('POST')
    expect(sent.headers.get('content-type')).toBe('application/json')
    const price = { value: 1999, currency: 'EUR' }
    expect(JSON.parse(sent.body!)).toEqual({ name, sku, price })
    expect(JSON.parse(run.stdout)).toMatchObject({ name, sku, price })
  })

  it("sends every -H 'Name: value' header", async () => {
    const run = await runCli(
      [
        'request',
        'GET',
        '/api/v2/products',
        '-H',
        'X-Request-Id: cli-test-1',
        '--header',
        'Accept-Language: fr',
      ],
      { env },
    )
    expect(run.requests[0]!.headers.get('x-request-id')).toBe('cli-test-1')
    expect(run.requests[0]!.headers.get('accept-language')).toBe('fr')
  })

  const inputs: { name: string; args: (body: string) => string[]; stdin?: (body: string) => string }[] = [
    {
      name: '--input FILE',
      args: (body) => {
        const file = join(tempDir(), 'product.json')
        writeFileSync(file, body)
        return ['--input', file]
      },
    },
    { name: '--input - (standard input)', args: () => ['--input', '-'], stdin: (body) => body },
  ]
  for (const { name, args, stdin } of inputs) {
    it(`sends the body of ${name} as it is`, async () => {
      const body = JSON.stringify(product())
      const run = await runCli(
        ['request', 'POST', '/api/v2/products', '-H', 'Content-Type: application/json', ...args(body)],
        { env, stdin: stdin?.(body) },
      )
      expect(run.stderr).toBe('')
      expect(run.requests[0]!.body).toBe(body)
      expect(JSON.parse(run.stdout)).toMatchObject(JSON.parse(body))
    })
  }

  it('prints the status line and headers before the body with -i', async () => {
    const run = await runCli(['request', 'GET', '/api/v2/products', '-i'], { env })
    expect(run.code).toBe(0)
    const [head, body] = run.stdout.split('\n\n')
    expect(head!.split('\n')[0]).toBe('HTTP 200 OK')
    expect(head).toMatch(/^content-type: application\/json/m)
    expect(head).toMatch(/^etag: "/m)
    expect(JSON.parse(body!)).toHaveProperty('data')
  })

  it('prints an error answer with -i on stdout and still exits 1', async () => {
    const run = await runCli(['request', 'GET', '/api/v2/products/prd_00000000000000000000000000', '-i'], {
      env,
    })
    expect(run.code).toBe(1)
    expect(run.stdout).toStartWith('HTTP 404 Not Found\n')
    expect(run.stdout).toContain('"NOT_FOUND"')
  })

  it('shows an error answer on stderr without -i, exit 1', async () => {
    const run = await runCli(['request', 'GET', '/api/v2/products?limit=0'], { env })
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toMatch(/^error BAD_REQUEST \(400\): .+\n {2}limit: .+\n$/)
  })

  it('prints nothing for an empty answer (204)', async () => {
    const created = JSON.parse(
      (
        await runCli(
          [
            'request',
            'POST',
            '/api/v2/products',
            ...Object.entries(product()).map(([k, v]) =>
              typeof v === 'string' ? `${k}=${v}` : `${k}:=${JSON.stringify(v)}`,
            ),
          ],
          { env },
        )
      ).stdout,
    ) as { id: string }
    const run = await runCli(['request', 'DELETE', `/api/v2/products/${created.id}`], { env })
    expect(run.code).toBe(0)
    expect(run.stdout).toBe('')
  })

  const usage: { args: string[]; message: string }[] = [
    { args: ['request', 'FETCH', '/api/v2/products'], message: 'unknown method FETCH' },
    { args: ['request', 'GET', 'api/v1/products'], message: 'PATH starts with /' },
    {
      args: ['request', 'GET', '/api/v2/products', '-H', 'no colon'],
      message: '-H "no colon" is not "Name: value"',
    },
    {
      args: ['request', 'POST', '/api/v2/products', 'a=1', '--input', 'x.json'],
      message: 'give fields or --input, not both',
    },
    { args: ['request', 'GET'], message: 'missing required args' },
  ]
  for (const { args, message } of usage) {
    it(`exits 2 before any request: api ${args.join(' ')}`, async () => {
      const run = await runCli(args, { env })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(message)
      expect(run.requests).toHaveLength(0)
    })
  }
})
