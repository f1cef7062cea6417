/**
 * A signing secret shows in the answer to a create and to `rotate-secret`, through GraphQL as
 * through REST, and nowhere else: not in a read, a list, a QUERY, an event or a line of the log
 * (at debug level, with deliveries made under it).
 */
import { afterAll, beforeAll, expect, it } from 'bun:test'
import { Webhook } from 'standardwebhooks'
import { createLogger } from '../../server/ops/logger.ts'
import { data } from '../graphql/support.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { type Receiver, startReceiver } from './receiver.ts'

const lines: string[] = []
let server: TestServer
let tenant: Tenant
let receiver: Receiver

beforeAll(async () => {
  server = await startTestServer({
    logger: createLogger('debug', (line) => lines.push(line)),
    webhooks: { allowHttp: true, pollMs: 25, attemptTimeoutMs: 1_000 },
  })
  tenant = await server.tenant()
  receiver = startReceiver()
})
afterAll(async () => {
  receiver.stop()
  await server.stop()
})

type Endpoint = { id: string; secret: string | null }

it('GraphQL answers the secret on create and rotate only; it signs deliveries and reaches no read, event or log', async () => {
  const { createWebhookEndpoint: created } = await data<{ createWebhookEndpoint: Endpoint }>(
    server,
    tenant,
    'mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id secret } }',
    { input: { url: receiver.url, eventTypes: ['webhook_endpoint.secret_rotated'] } },
  )
  expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
  const { rotateSecretWebhookEndpoint: rotated } = await data<{ rotateSecretWebhookEndpoint: Endpoint }>(
    server,
    tenant,
    'mutation($id: ID!) { rotateSecretWebhookEndpoint(id: $id) { id secret } }',
    { id: created.id },
  )
  expect(rotated.secret).toMatch(/^whsec_/)
  expect(rotated.secret).not.toBe(created.secret)
  const secrets = [created.secret!, rotated.secret!]

  // The rotation's own event arrives signed under both secrets.
  const [delivery] = await receiver.waitFor(1)
  for (const secret of secrets) new Webhook(secret).verify(delivery!.body, delivery!.headers)

  const read = await data<{ webhookEndpoint: Endpoint; webhookEndpoints: { nodes: Endpoint[] } }>(
    server,
    tenant,
    'query($id: ID!) { webhookEndpoint(id: $id) { id secret } webhookEndpoints { nodes { id secret } } }',
    { id: created.id },
  )
  expect(read.webhookEndpoint.secret).toBeNull()
  expect(read.webhookEndpoints.nodes.map((n) => n.secret)).toEqual([null])
  const answers = [
    await tenant.fetch(`/api/v2/webhook-endpoints/${created.id}`),
    await tenant.fetch('/api/v2/webhook-endpoints'),
    await tenant.fetch('/api/v2/webhook-endpoints', {
      method: 'QUERY',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'enabled=true',
    }),
    await tenant.fetch('/api/v2/events?resource=webhook-endpoints'),
    await tenant.fetch(`/api/v2/webhook-endpoints/${created.id}/deliveries`),
  ]
  for (const answer of answers) {
    expect(answer.status).toBe(200)
    const text = await answer.text()
    expect(text).toContain(created.id)
    for (const secret of secrets) expect(text).not.toContain(secret.slice('whsec_'.length))
  }

  // The log at debug level saw the requests and the attempt, and neither secret.
  await Bun.sleep(100)
  expect(lines.some((line) => line.includes('"webhook delivery"'))).toBe(true)
  expect(
    lines.some((line) => line.includes('rotateSecretWebhookEndpoint') || line.includes('/graphql')),
  ).toBe(true)
  for (const secret of secrets)
    expect(lines.filter((line) => line.includes(secret.slice('whsec_'.length)))).toEqual([])
})

it('an Idempotency-Key replays the secret of a create or rotation, which its stored answer keeps sealed', async () => {
  const key = (name: string) => ({ 'Idempotency-Key': `${name}-${crypto.randomUUID()}` })
  const createKey = key('create')
  const create = () =>
    tenant.fetch('/api/v2/webhook-endpoints', {
      method: 'POST',
      headers: createKey,
      json: { url: receiver.url, eventTypes: ['nothing.ever'] },
    })
  const first = await create()
  expect(first.status).toBe(201)
  const created = (await first.json()) as Endpoint
  // The first answer may never have reached the client: the replay shows the same secret.
  const again = await create()
  expect(again.headers.get('Idempotent-Replayed')).toBe('true')
  expect(((await again.json()) as Endpoint).secret).toBe(created.secret)

  const rotateKey = key('rotate')
  const rotate = () =>
    tenant.fetch(`/api/v2/webhook-endpoints/${created.id}/rotate-secret`, {
      method: 'POST',
      headers: rotateKey,
    })
  const rotated = (await (await rotate()).json()) as Endpoint
  const replayed = await rotate()
  expect(replayed.headers.get('Idempotent-Replayed')).toBe('true')
  expect(((await replayed.json()) as Endpoint).secret).toBe(rotated.secret)
  expect(rotated.secret).not.toBe(created.secret)

  // In the database the kept answers hold neither secret, nor anything else of them in clear.
  const kept = await server.sql.all<{ body: string }>(
    "SELECT body FROM idempotency_keys WHERE key LIKE 'create-%' OR key LIKE 'rotate-%'",
  )
  expect(kept).toHaveLength(2)
  for (const { body } of kept) {
    for (const secret of [created.secret!, rotated.secret!])
      expect(body).not.toContain(secret.slice('whsec_'.length))
    expect(body).not.toContain(created.id)
  }
})
