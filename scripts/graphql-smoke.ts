/**
 * Checks GraphQL through a compiled `api-server`, from an empty directory: the contract's shape for
 * every resource (create, read one, list with relations), the graphql-http audit, and a subscriber
 * that drops and reconnects with `after` (over SSE, then WebSocket) missing no event.
 * Usage: bun scripts/graphql-smoke.ts dist/api-server
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { auditServer } from 'graphql-http'
import { createClient as createSseClient } from 'graphql-sse'
import { createClient as createWsClient } from 'graphql-ws'
import { pluralField, typeName } from '../server/graphql/names.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import { smokePort } from './smoke-support.ts'

/** What the binary serves without a schema file. */
const RESOURCES = exampleSchema().resources

const binary = resolve(process.argv[2] ?? 'dist/api-server')
const dir = mkdtempSync(join(tmpdir(), 'api-graphql-smoke-'))
copyFileSync(binary, join(dir, 'api-server'))
const run = (...args: string[]) => {
  const result = Bun.spawnSync([join(dir, 'api-server'), ...args, '--db', join(dir, 'api.db')], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin' },
  })
  if (result.exitCode !== 0) throw new Error(`api-server ${args.join(' ')}: ${result.stderr.toString()}`)
  return result.stdout.toString()
}
// biome-ignore lint/suspicious/noExplicitAny: responses are checked where they are read
type Json = any

const step = (message: string) => console.log(`graphql-smoke: ${message}`)
const port = smokePort()
const url = `http://127.0.0.1:${port}`
let server: ReturnType<typeof Bun.spawn> | undefined

async function post(token: string, query: string, variables?: Record<string, unknown>) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json',
      Authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ query, variables }),
  })
  const body = (await response.json()) as { data?: Record<string, Json>; errors?: unknown[] }
  if (response.status !== 200 || body.errors)
    throw new Error(`${query}: ${response.status} ${JSON.stringify(body)}`)
  return body.data!
}

/** Inputs for every writable resource; parents and references are filled in as they are made. */
const INPUTS: Record<string, (ids: Record<string, string>) => Record<string, unknown>> = {
  users: () => ({ name: 'Smoke', email: `smoke-${Date.now()}@example.com` }),
  addresses: () => ({ line1: '1 Main St', city: 'Berlin', country: 'DE' }),
  products: () => ({ name: 'Lamp', sku: `LAMP-${Date.now()}`, price: 4200, currency: 'EUR' }),
  orders: (ids) => ({ userId: ids.users, amount: 4200, currency: 'EUR', status: 'paid' }),
  'line-items': (ids) => ({ productId: ids.products, quantity: 2, unitPrice: 2100 }),
  posts: (ids) => ({ authorId: ids.users, title: 'Hello' }),
  comments: (ids) => ({ authorId: ids.users, text: 'Nice' }),
  // Nobody answers there: the worker records a failing delivery, which the reads below show.
  'webhook-endpoints': () => ({ url: 'http://127.0.0.1:9/hook', eventTypes: ['order.updated'] }),
  'oauth-clients': () => ({ name: 'Smoke reporting job' }),
}

try {
  const org = JSON.parse(run('org', 'create', '--name', 'Smoke', '--json')) as { id: string }
  const client = JSON.parse(run('client', 'create', '--name', 'smoke', '--org', org.id, '--json')) as {
    client_id: string
    client_secret: string
  }
  server = Bun.spawn(
    [
      join(dir, 'api-server'),
      'serve',
      '--port',
      String(port),
      '--db',
      join(dir, 'api.db'),
      '--allow-http-webhooks',
    ],
    {
      cwd: dir,
      stdout: 'ignore',
      stderr: 'inherit',
    },
  )
  for (
    let i = 0;
    !(await fetch(`${url}/.well-known/jwks.json`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    if (i > 100) throw new Error('the server did not start')
    await Bun.sleep(100)
  }
  const tokenResponse = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
    },
    body: 'grant_type=client_credentials',
  })
  const { access_token: token } = (await tokenResponse.json()) as { access_token: string }
  if (!token) throw new Error(`no token: ${tokenResponse.status}`)
  step(`serving on ${url}, token for ${client.client_id}`)

  const ids: Record<string, string> = {}
  for (const r of RESOURCES.filter((r) => r.writable)) {
    const parent = r.parent ? `${r.parent.field}: $parent, ` : ''
    const vars = r.parent ? '$parent: ID!, ' : ''
    const made = await post(
      token,
      `mutation(${vars}$input: Create${typeName(r)}Input!) { made: create${typeName(r)}(${parent}input: $input) { id } }`,
      {
        input: INPUTS[r.name]!(ids),
        ...(r.parent ? { parent: ids[r.parent.collection] } : {}),
      },
    )
    ids[r.name] = made.made.id
  }
  // A delivery to read: the worker queues one for the endpoint once an order changes.
  await post(token, 'mutation($id: ID!) { updateOrder(id: $id, input: {amount: 4300}) { id } }', {
    id: ids.orders,
  })
  for (let i = 0; ; i++) {
    const got = await post(token, '{ deliveries(first: 1) { nodes { id } } }')
    if (got.deliveries.nodes.length > 0) break
    if (i === 100) throw new Error('the webhook worker queued no delivery in 10 s')
    await Bun.sleep(100)
  }
  for (const r of RESOURCES) {
    // Each field as a record shows it: an object (an event's actor) with its members.
    const shown = r.presented.map((f) =>
      r.objects[f] ? `${f} { ${Object.keys(r.objects[f]).join(' ')} }` : f,
    )
    const fields = ['id', ...shown, 'createdAt', 'updatedAt']
    const relations = Object.entries(r.fields)
      .filter(([, f]) => f.references)
      .map(([name]) => `${name.slice(0, -2)} { id }`)
    const children = RESOURCES.filter((c) => c.parent?.collection === r.name).map(
      (c) => `${pluralField(c)} { totalCount }`,
    )
    const selection = [...fields, ...relations, ...children].join(' ')
    const list = await post(
      token,
      `{ list: ${pluralField(r)}(first: 5) { totalCount nodes { ${selection} } edges { cursor } pageInfo { hasNextPage endCursor } } }`,
    )
    const id = ids[r.name] ?? list.list.nodes[0].id
    const one = await post(token, `query($id: ID!) { one: ${r.singular}(id: $id) { ${selection} } }`, { id })
    step(
      `${r.name}: ${r.singular}(id) and ${pluralField(r)} -> totalCount ${list.list.totalCount}, ${JSON.stringify(one.one).slice(0, 110)}...`,
    )
  }

  const results = await auditServer({
    url: `${url}/graphql`,
    fetchFn: (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers)
      headers.set('Authorization', `Bearer ${token}`)
      return fetch(input, { ...init, headers })
    },
  })
  const counts: Record<string, number> = {}
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1
  step(`graphql-http audit: ${results.length} audits, ${JSON.stringify(counts)}`)
  if (counts.ok !== 61 || results.length !== 61) throw new Error('the audit did not pass 61/61')

  const write = async (n: number) => {
    for (let i = 0; i < n; i++)
      await post(token, 'mutation($id: ID!) { updateOrder(id: $id, input: {amount: 1}) { id } }', {
        id: ids.orders,
      })
  }
  const subscription = 'subscription($after: ID) { events(after: $after) { id type } }'
  for (const transport of ['sse', 'ws'] as const) {
    const open = (after?: string) => {
      const c =
        transport === 'sse'
          ? createSseClient({
              url: `${url}/graphql`,
              headers: { Authorization: `Bearer ${token}` },
              retryAttempts: 0,
            })
          : createWsClient({
              url: `${url.replace('http', 'ws')}/graphql`,
              connectionParams: { Authorization: `Bearer ${token}` },
              webSocketImpl: WebSocket,
              retryAttempts: 0,
            })
      return { client: c, events: c.iterate({ query: subscription, variables: { after } }) }
    }
    const first = open()
    await Bun.sleep(400)
    await write(2)
    const seen: string[] = []
    for (let i = 0; i < 2; i++) seen.push(((await first.events.next()).value as Json).data.events.id)
    await first.events.return?.()
    await first.client.dispose()
    await write(3) // while nobody listens
    const second = open(seen.at(-1))
    const replayed: string[] = []
    for (let i = 0; i < 3; i++) replayed.push(((await second.events.next()).value as Json).data.events.id)
    await second.events.return?.()
    await second.client.dispose()
    const expected = (await post(token, '{ events(first: 5) { nodes { id } } }')).events.nodes
      .map((n: { id: string }) => n.id)
      .reverse()
    const all = [...seen, ...replayed]
    if (JSON.stringify(all) !== JSON.stringify(expected))
      throw new Error(`${transport}: got ${all}, the log has ${expected}`)
    step(
      `${transport}: dropped after ${seen.length} events, reconnected with after=${seen.at(-1)}, got the ${replayed.length} missed, in order, none twice`,
    )
  }
} finally {
  server?.kill('SIGTERM')
  if (server) step(`SIGTERM -> exit ${await server.exited}`)
  rmSync(dir, { recursive: true, force: true })
}
