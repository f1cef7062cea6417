import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { VERSIONS } from '../../server/versions/versions.ts'
import { snakeName } from '../../shared/query/fields.ts'
import { filterParams } from '../../shared/query/list-params.ts'
import { relationsOf } from '../../shared/query/shape.ts'
import { exampleSchema, type Resource } from '../../shared/resources/index.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { exampleBody, examplePatch } from './examples.ts'
import { ResponseValidator } from './response-validator.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

/**
 * Drives a few hundred varied requests through a real server, per API version, and validates
 * every response (status, headers, body) against that version's served OpenAPI document. Each
 * request also states the status it expects, so that it exercises what it claims to.
 */

let server: TestServer
let acme: Tenant
let other: Tenant
let readUsersOnly: Tenant

beforeAll(async () => {
  // Webhook URLs here go to a closed loopback port: one failed attempt each, then nothing moves.
  server = await startTestServer({ webhooks: { allowHttp: true, scheduleMs: [], pollMs: 20 } })
  acme = await server.tenant()
  other = await server.tenant()
  readUsersOnly = await server.tenant({ scope: ['read:users'] })
})
afterAll(() => server.stop())

type Caller = Tenant | null
interface Send {
  as?: Caller
  json?: unknown
  body?: string
  type?: string
  headers?: Record<string, string>
}
interface Answer {
  status: number
  headers: Headers
  json: Record<string, unknown> & { data?: Record<string, unknown>[] }
}

/** Sends requests, checks each answer against the document and its expected status, and counts them. */
class Driver {
  problems: string[] = []
  sent = 0

  constructor(private readonly validator: ResponseValidator) {}

  async send(method: string, target: string, expected: number, options: Send = {}): Promise<Answer> {
    const headers = new Headers(options.headers)
    let body = options.body
    if (options.json !== undefined) body = JSON.stringify(options.json)
    if (options.type ?? (options.json !== undefined ? 'application/json' : undefined))
      headers.set('Content-Type', options.type ?? 'application/json')
    const init = { method, headers, body }
    const caller = options.as === undefined ? acme : options.as
    const response = await (caller ? caller.fetch(target, init) : server.fetch(target, init))
    const text = await response.text()
    this.sent += 1
    const exchange = { method, target, status: response.status, headers: response.headers, body: text }
    if (response.status !== expected)
      this.problems.push(
        `${method} ${target}: expected ${expected}, got ${response.status} ${text.slice(0, 200)}`,
      )
    this.problems.push(...this.validator.check(exchange))
    let json = {}
    try {
      json = text ? JSON.parse(text) : {}
    } catch {}
    return { status: response.status, headers: response.headers, json: json as Answer['json'] }
  }
}

const UNKNOWN = (prefix: string) => `${prefix}_0${'a'.repeat(25)}`
const FORM = 'application/x-www-form-urlencoded'

/** A value for each filter parameter, taken from a record as v1 shows it. */
function filterValue(
  resource: Resource,
  name: string,
  field: string,
  record: Record<string, unknown>,
): string {
  if (name.endsWith('_after') || name.endsWith('_before'))
    return name.endsWith('_after') ? '2020-01-01' : '2099-12-31T23:59:59Z'
  const timestamp = resource.fields[field]!.kind === 'timestamp'
  if (name.endsWith('_gte')) return timestamp ? '2000-01-01' : '0'
  if (name.endsWith('_lte')) return timestamp ? '2099-12-31T23:59:59Z' : '1000000000'
  if (resource.fields[field]!.kind === 'boolean') return String(record[field] ?? true)
  return String(record[field])
}

/** The reads of a collection: every pagination style, each filter, search, sort, 304s and 400s. */
async function reads(d: Driver, prefix: string, resource: Resource, collection: string) {
  const first = await d.send('GET', collection, 200)
  const one = await d.send('GET', `${collection}?limit=1`, 200)
  const next = (one.json.pagination as { next?: string | null }).next
  if (next) await d.send('GET', next, 200)
  const id = first.json.data?.[0]?.id
  if (id) await d.send('GET', `${collection}?limit=2&after=${id}`, 200)
  await d.send('GET', `${collection}?page=1&per_page=2&include_total=true`, 200)
  await d.send('GET', `${collection}?page=2&limit=1`, 200)
  await d.send('GET', `${collection}?offset=1&limit=2&include_total=true`, 200)
  // The same pages as CSV and NDJSON (docs/bulk.md), with their Link and X-Total-Count.
  for (const accept of ['text/csv', 'application/x-ndjson']) {
    const headers = { Accept: accept }
    await d.send('GET', `${collection}?limit=1`, 200, { headers })
    await d.send('GET', `${collection}?page=1&per_page=1&include_total=true`, 200, { headers })
    await d.send('HEAD', `${collection}?limit=1`, 200, { headers })
  }
  await d.send('GET', collection, 406, { headers: { Accept: 'application/xml' } })
  // Values as v1 shows them (v2 wraps amounts in objects); this read is not one under test.
  const v1 = (await (await acme.fetch(`/api/v1/${resource.name}?limit=1`)).json()) as Answer['json']
  const record = v1.data?.[0] ?? {}
  for (const p of filterParams(resource)) {
    const value = encodeURIComponent(filterValue(resource, p.name, p.field, record))
    await d.send('GET', `${collection}?${p.name}=${value}`, 200)
  }
  if (resource.searchable.length > 0) {
    await d.send('GET', `${collection}?q=Exam`, 200)
    await d.send('GET', `${collection}?search=${'x'.repeat(201)}`, 400)
  }
  for (const key of resource.sortable.map(snakeName)) await d.send('GET', `${collection}?sort=-${key}`, 200)
  const etag = first.headers.get('etag')!
  await d.send('GET', collection, 304, { headers: { 'If-None-Match': etag } })
  await d.send('GET', collection, 304, {
    headers: { 'If-Modified-Since': first.headers.get('last-modified')! },
  })
  for (const bad of [
    'limit=0',
    'limit=101',
    'bogus=1',
    'sort=nope',
    'page=1&cursor=x',
    'cursor=forged',
    'created_after=2023-02-29',
  ])
    await d.send('GET', `${collection}?${bad}`, 400)
  await d.send('GET', collection, 401, { as: null })
  if (resource.name !== 'users') await d.send('GET', collection, 403, { as: readUsersOnly })
  await shaped(d, resource, collection)
  await queries(d, prefix, resource, collection)
}

/** Every relation of a resource, and each second level: `user,lineItems,lineItems.product`. */
const everyExpansion = (resource: Resource) =>
  relationsOf(SCHEMA, resource)
    .flatMap((r) => [r.name, ...relationsOf(SCHEMA, r.target).map((sub) => `${r.name}.${sub.name}`)])
    .join(',')

/** `fields` and `expand` on a collection (and in a QUERY form body), and their 400s and 403. */
async function shaped(d: Driver, resource: Resource, collection: string) {
  const field = Object.keys(resource.fields)[0]!
  await d.send('GET', `${collection}?fields=${field}`, 200)
  await d.send('GET', `${collection}?fields=id`, 200)
  const expand = everyExpansion(resource)
  if (expand) {
    await d.send('GET', `${collection}?expand=${expand}&expand_limit=1`, 200)
    const first = relationsOf(SCHEMA, resource)[0]!.name
    await d.send('GET', `${collection}?expand=${first}&fields=${field},${first}.id`, 200)
    await d.send('QUERY', collection, 200, { type: FORM, body: `expand=${expand}&fields=id&limit=2` })
    await d.send('GET', `${collection}?expand=${first}.nope`, 400)
  }
  await d.send('GET', `${collection}?fields=nope`, 400)
  await d.send('GET', `${collection}?expand=nope`, 400)
  if (resource.name === 'users')
    await d.send('GET', `${collection}?expand=addresses`, 403, { as: readUsersOnly })
}

/** QUERY on a collection in each media type, its stored query and answer, and its errors. */
async function queries(d: Driver, prefix: string, resource: Resource, collection: string) {
  const form = await d.send('QUERY', collection, 200, { type: FORM, body: 'limit=2' })
  await d.send('QUERY', collection, 304, {
    type: FORM,
    body: 'limit=2',
    headers: { 'If-None-Match': form.headers.get('etag')! },
  })
  const lists = filterParams(resource).filter((p) => resource.fields[p.field]?.kind === 'enum')
  const json: Record<string, unknown> = { limit: 2, sort: '-created_at' }
  for (const p of lists) json[p.name] = resource.fields[p.field]!.values!.slice(0, 2)
  await d.send('QUERY', collection, 200, { json })
  await d.send('QUERY', collection, 200, {
    type: 'application/sql',
    body: `SELECT * FROM ${resource.table} LIMIT 2`,
  })
  await d.send('QUERY', collection, 200, {
    type: 'application/sql',
    body: `SELECT id, created_at FROM ${resource.table} ORDER BY created_at DESC LIMIT 2`,
  })
  await d.send('QUERY', `${collection}?limit=2`, 200, {
    type: 'application/jsonpath',
    body: "$[?@.createdAt >= '2000-01-01']",
  })
  // The same as CSV and NDJSON (docs/bulk.md): the answer, its stored query and its stored answer.
  const csv = await d.send('QUERY', collection, 200, {
    type: 'application/sql',
    body: `SELECT * FROM ${resource.table} LIMIT 1`,
    headers: { Accept: 'text/csv' },
  })
  await d.send('GET', csv.headers.get('location')!, 200, { headers: { Accept: 'text/csv' } })
  await d.send('GET', csv.headers.get('content-location')!, 200)
  await d.send('QUERY', collection, 200, {
    type: FORM,
    body: 'limit=1',
    headers: { Accept: 'application/x-ndjson' },
  })
  await d.send('QUERY', collection, 406, {
    type: FORM,
    body: 'limit=1',
    headers: { Accept: 'application/xml' },
  })
  await d.send('QUERY', collection, 415, { type: 'text/plain', body: 'limit=2' })
  await d.send('QUERY', collection, 400, { body: 'limit=2' })
  await d.send('QUERY', `${collection}?bogus=1`, 400, { type: FORM, body: 'limit=2' })
  await d.send('QUERY', collection, 422, {
    type: 'application/sql',
    body: `SELECT nope FROM ${resource.table}`,
  })
  await d.send('QUERY', collection, 401, { as: null, type: FORM, body: '' })
  const location = form.headers.get('location')!
  await d.send('GET', location, 200)
  const stored = form.headers.get('content-location')!
  const answer = await d.send('GET', stored, 200)
  await d.send('GET', stored, 304, { headers: { 'If-None-Match': answer.headers.get('etag')! } })
  await d.send('DELETE', location, 204)
  await d.send('GET', location, 404)
  await d.send('GET', `${prefix}/queries/qry_${'0'.repeat(26)}`, 404)
}

/** A record's reads and writes at its singleton path, with the answers to stale, unknown and foreign requests. */
async function singleton(d: Driver, path: string, resource: Resource) {
  const got = await d.send('GET', path, 200)
  await d.send('GET', path, 304, { headers: { 'If-None-Match': got.headers.get('etag')! } })
  await d.send('GET', `${path}?bogus=1`, 400)
  await d.send('GET', `${path}?fields=id`, 200)
  const expand = everyExpansion(resource)
  if (expand) await d.send('GET', `${path}?expand=${expand}`, 200)
  await d.send('GET', `${path}?fields=nope`, 400)
  await d.send('GET', path, 403, { as: other })
  await d.send('GET', path, 401, { as: null })
  await d.send('QUERY', path, 405, { type: FORM, body: '' })
  await d.send('POST', path, 405, { json: {} })
  const base = path.slice(0, path.lastIndexOf('/'))
  await d.send('GET', `${base}/${UNKNOWN(resource.prefix)}`, 404)
  await d.send('GET', `${base}/not-an-id`, 404)
  if (!resource.writable) await d.send('PATCH', path, 405, { json: {} })
}

/** Each declared action of a record: acting, its replay, and every error it documents. */
async function actions(d: Driver, path: string, resource: Resource) {
  for (const action of resource.actions) {
    const at = `${path}/${action.name}`
    // A state change can be set up and refused; the server's own actions (rotate-secret) act each time.
    const field = action.field
    if (field !== undefined) await d.send('PATCH', path, 200, { json: { [field]: action.from![0] } })
    await d.send('POST', at, 412, { headers: { 'If-Match': '"stale"' } })
    await d.send('POST', at, 422, { json: { [field ?? 'x']: action.to ?? 1 } })
    await d.send('POST', at, 422, { json: [] })
    await d.send('POST', at, 400, { body: '{"a":', type: 'application/json' })
    await d.send('POST', at, 415, { body: 'x', type: 'text/plain' })
    await d.send('POST', `${at}?bogus=1`, 400)
    await d.send('POST', at, 401, { as: null })
    await d.send('POST', at, 403, { as: readUsersOnly })
    await d.send('POST', at, 403, { as: other })
    await d.send(
      'POST',
      `${path.slice(0, path.lastIndexOf('/'))}/${UNKNOWN(resource.prefix)}/${action.name}`,
      404,
    )
    await d.send('GET', at, 405)
    const key = { 'Idempotency-Key': `k-${path}-${action.name}` }
    const done = await d.send('POST', at, 200, { headers: key })
    const replayed = await d.send('POST', at, 200, { json: {}, headers: key })
    if (replayed.headers.get('idempotent-replayed') !== 'true') d.problems.push(`${at}: no replay`)
    if (field !== undefined)
      await d.send('POST', at, 409, { headers: { 'If-Match': done.headers.get('etag')! } })
  }
}

/** Waits until the webhook worker has made every attempt it will make, so that deliveries hold still. */
async function webhooksSettled() {
  const deadline = Date.now() + 10_000
  let last = ''
  for (;;) {
    const pending = await acme.fetch('/api/v2/deliveries?status=pending&limit=1')
    const all = await (await acme.fetch('/api/v2/deliveries?limit=100')).text()
    const quiet = ((await pending.json()) as { data: unknown[] }).data.length === 0 && all === last
    if (quiet || Date.now() > deadline) return
    last = all
    await Bun.sleep(100)
  }
}

/** Every request of one collection: reads, QUERY, creates (with replays), changes, deletes, and their errors. */
async function exercise(d: Driver, prefix: string, resource: Resource, refs: Record<string, string>) {
  const version = VERSIONS.find((v) => v.prefix === prefix)!
  const parent = resource.parent ? SCHEMA.byName(resource.parent.collection)! : undefined
  const collection = `${prefix}/${resource.name}`
  const nested = parent ? `${prefix}/${parent.name}/${refs[parent.name]}/${resource.name}` : undefined
  const createAt = nested ?? collection
  const body = () => exampleBody(version, resource, refs)
  if (resource.name === 'deliveries') await webhooksSettled()
  await reads(d, prefix, resource, collection)
  if (nested) {
    await reads(d, prefix, resource, nested)
    await d.send('GET', `${prefix}/${parent!.name}/${UNKNOWN(parent!.prefix)}/${resource.name}`, 404)
    await d.send('POST', collection, 405, { json: body() })
  }
  if (!resource.writable) {
    const listed = await d.send('GET', `${collection}?limit=1`, 200)
    await singleton(d, `${collection}/${listed.json.data![0]!.id}`, resource)
    await d.send('POST', collection, 405, { json: {} })
    return
  }
  const key = { 'Idempotency-Key': `k-${prefix}-${resource.name}` }
  const sent = body()
  const created = await d.send('POST', createAt, 201, { json: sent, headers: key })
  const record = created.json as { id: string }
  const replayed = await d.send('POST', createAt, 201, { json: sent, headers: key })
  if (replayed.headers.get('idempotent-replayed') !== 'true') d.problems.push(`${createAt}: no replay`)
  await d.send('POST', createAt, 422, { json: { ...sent, ...examplePatch(version, resource) }, headers: key })
  await d.send('POST', createAt, 422, { json: { ...body(), nope: 1 } })
  await d.send('POST', createAt, 422, { json: [] })
  await d.send('POST', createAt, 400, { body: '{"a":', type: 'application/json' })
  await d.send('POST', createAt, 415, { body: 'x', type: 'text/plain' })
  await d.send('POST', `${createAt}?bogus=1`, 400, { json: body() })
  await d.send('POST', createAt, 401, { as: null, json: body() })
  if (resource.name === 'users') await d.send('POST', createAt, 403, { as: readUsersOnly, json: body() })
  const path = `${collection}/${record.id}`
  await singleton(d, path, resource)
  if (nested) await d.send('GET', `${nested}/${record.id}`, 200)
  const patched = await d.send('PATCH', path, 200, { json: examplePatch(version, resource) })
  await d.send('PATCH', path, 412, {
    json: examplePatch(version, resource),
    headers: { 'If-Match': '"stale"' },
  })
  await d.send('PATCH', path, 422, { json: { id: 'x' } })
  await d.send('PATCH', path, 415, { body: 'x', type: 'text/plain' })
  await d.send('PUT', path, 200, { json: body(), headers: { 'If-Match': patched.headers.get('etag')! } })
  await d.send('PUT', path, 422, { json: {} })
  // After the changes: an action may end what a record can still do (a revoked OAuth client).
  await actions(d, path, resource)
  await d.send('DELETE', path, 412, { headers: { 'If-Match': '"stale"' } })
  await d.send('DELETE', path, 204)
  await d.send('DELETE', path, 404)
  await d.send('PUT', collection, 405, { json: body() })
  await d.send('PATCH', createAt, 405, { json: {} })
  await d.send('DELETE', `${createAt}?confirm=${resource.name}&created_after=2099-01-01`, 204)
  await d.send('DELETE', createAt, 400)
  await d.send('DELETE', `${createAt}?confirm=${resource.name}&limit=2`, 400)
}

/** `/search`, conflicts, a real bulk delete, and the answers of the edge (414, 413). */
async function searchAndMore(d: Driver, prefix: string, refs: Record<string, string>, email: string) {
  const search = `${prefix}/search`
  const hits = await d.send('GET', `${search}?q=Exam`, 200)
  await d.send('GET', `${search}?q=Exam`, 304, { headers: { 'If-None-Match': hits.headers.get('etag')! } })
  await d.send('GET', `${search}?collection=orders&filter=${encodeURIComponent('amount >= 0')}&limit=2`, 200)
  await d.send('GET', `${search}?bogus=1`, 400)
  await d.send('GET', `${search}?q=Exam&fields=name`, 200)
  await d.send(
    'GET',
    `${search}?collection=orders&expand=user,lineItems.product&fields=status,user.name`,
    200,
  )
  await d.send('QUERY', search, 200, {
    json: { collection: 'orders', expand: ['user'], fields: 'user.email' },
  })
  await d.send('GET', `${search}?q=Exam&expand=user`, 400)
  await d.send('GET', `${search}?q=Exam`, 401, { as: null })
  await d.send('GET', `${search}?collection=orders`, 403, { as: readUsersOnly })
  await d.send('QUERY', search, 200, { type: FORM, body: 'q=Exam' })
  await d.send('QUERY', search, 200, { json: { collection: 'orders', filter: 'amount >= 0', limit: 2 } })
  await d.send('QUERY', search, 200, { type: 'application/sql', body: 'SELECT * FROM orders LIMIT 2' })
  await d.send('QUERY', `${search}?limit=2`, 200, {
    type: 'application/jsonpath',
    body: "$.orders[?@.createdAt >= '2000-01-01']",
  })
  await d.send('QUERY', search, 422, { type: 'application/sql', body: 'SELECT * FROM nowhere' })
  await d.send('POST', `${prefix}/users`, 409, { json: { name: 'Twin', email } })
  await d.send('DELETE', `${prefix}/users/${refs.users}`, 409)
  const comments = `${prefix}/posts/${refs.posts}/comments`
  await d.send('POST', comments, 201, { json: { text: 'To go' } })
  const deleted = await d.send('DELETE', `${comments}?confirm=comments`, 204)
  if (Number(deleted.headers.get('deleted-count')) < 1) d.problems.push(`${comments}: nothing deleted`)
  await d.send('GET', `${prefix}/orders?q=${'x'.repeat(9000)}`, 414)
  await d.send('POST', `${prefix}/users`, 413, {
    body: 'x'.repeat(1024 * 1024 + 1),
    type: 'application/json',
  })
}

/** The service's own endpoints: the index, versions, health, keys, this document, and OAuth. */
async function serviceEndpoints(d: Driver, prefix: string) {
  for (const path of ['/', '/api/versions', '/healthz', '/readyz', '/.well-known/jwks.json'])
    await d.send('GET', path, 200, { as: null })
  await d.send('GET', '/.well-known/oauth-authorization-server', 200, { as: null })
  await d.send('GET', `${prefix}/openapi.json`, 200, { as: null })
  const basic = { Authorization: `Basic ${btoa(`${acme.clientId}:${acme.clientSecret}`)}` }
  const wrong = { Authorization: `Basic ${btoa(`${acme.clientId}:wrong`)}` }
  const form = (body: string, headers: Record<string, string> = basic) => ({
    as: null,
    type: FORM,
    body,
    headers,
  })
  await d.send('POST', '/oauth/token', 200, form('grant_type=client_credentials&scope=read:users'))
  await d.send('POST', '/oauth/token', 400, form('grant_type=password'))
  await d.send('POST', '/oauth/token', 401, form('grant_type=client_credentials', wrong))
  await d.send('POST', '/oauth/token', 400, { as: null, type: 'text/plain', body: 'x', headers: basic })
  await d.send('POST', '/oauth/introspect', 200, form(`token=${acme.token}`))
  await d.send('POST', '/oauth/revoke', 200, form('token=nothing-to-revoke'))
  await d.send('POST', '/oauth/device_authorization', 200, form('client_id=api-cli&scope=read:users', {}))
  await d.send('POST', '/oauth/device_authorization', 401, form('client_id=nobody', {}))
  await d.send('GET', '/oauth/authorize', 400, { as: null })
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
  const start = `/oauth/authorize?response_type=code&client_id=api-cli&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/callback')}&code_challenge=${challenge}&code_challenge_method=S256&state=s`
  await d.send('GET', start, 200, { as: null })
  await d.send('POST', '/oauth/authorize', 403, form('step=login&email=a%40b.c&password=x', {}))
}

describe.each(VERSIONS.map((v) => [v.name, v] as const))('responses of /api/%s', (_, version) => {
  let d: Driver
  const refs: Record<string, string> = {}
  let email = ''

  beforeAll(async () => {
    const doc = await (await server.fetch(`${version.prefix}/openapi.json`)).json()
    d = new Driver(new ResponseValidator(doc as Record<string, unknown>))
    // Two records of each collection (so that every page style has a next page), created in
    // dependency order; the first is the one others refer to and nest under.
    for (const resource of SCHEMA.resources.filter((r) => r.writable)) {
      const parent = resource.parent
      const path = parent
        ? `${version.prefix}/${parent.collection}/${refs[parent.collection]}/${resource.name}`
        : `${version.prefix}/${resource.name}`
      const created = await d.send('POST', path, 201, { json: exampleBody(version, resource, refs) })
      await d.send('POST', path, 201, { json: exampleBody(version, resource, refs) })
      refs[resource.name] = created.json.id as string
      if (resource.name === 'users') email = created.json.email as string
    }
  })

  it.each(SCHEMA.resources.map((r) => [r.name, r] as const))(
    '%s: pagination styles, filters, QUERY, writes and their errors answer as documented',
    async (_, resource) => {
      const before = d.problems.length
      await exercise(d, version.prefix, resource, refs)
      expect(d.problems.slice(before)).toEqual([])
    },
  )

  it('search, conflicts, a bulk delete, 413 and 414 answer as documented', async () => {
    const before = d.problems.length
    await searchAndMore(d, version.prefix, refs, email)
    expect(d.problems.slice(before)).toEqual([])
  })

  it('the index, versions, health, keys, the document and the OAuth endpoints answer as documented', async () => {
    const before = d.problems.length
    await serviceEndpoints(d, version.prefix)
    expect(d.problems.slice(before)).toEqual([])
  })

  it('429 answers as documented, with Retry-After', async () => {
    const limited = await startTestServer({ rateLimit: 2 })
    try {
      const doc = await (await limited.fetch(`${version.prefix}/openapi.json`)).json()
      const validator = new ResponseValidator(doc as Record<string, unknown>)
      const statuses: number[] = []
      for (let i = 0; i < 3; i++) {
        const response = await limited.fetch(`${version.prefix}/orders`)
        const body = await response.text()
        statuses.push(response.status)
        const exchange = {
          method: 'GET',
          target: `${version.prefix}/orders`,
          status: response.status,
          headers: response.headers,
          body,
        }
        expect(validator.check(exchange)).toEqual([])
      }
      expect(statuses).toEqual([401, 429, 429])
    } finally {
      await limited.stop()
    }
  })

  it('runs the example body of every QUERY media type the document shows', async () => {
    const before = d.problems.length
    const doc = (await (await server.fetch(`${version.prefix}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { example: unknown }> } }>
      >
    }
    const queryField = version.name === 'v2' ? 'query' : 'x-query'
    for (const [path, item] of Object.entries(doc.paths)) {
      const content = item[queryField]?.requestBody?.content
      if (!content || path.includes('{')) continue
      for (const [type, { example }] of Object.entries(content)) {
        const body =
          type === FORM
            ? new URLSearchParams(example as Record<string, string>).toString()
            : typeof example === 'string'
              ? example
              : JSON.stringify(example)
        await d.send('QUERY', path, 200, { type, body })
      }
    }
    expect(d.problems.slice(before)).toEqual([])
  })

  it('drove a few hundred varied requests', () => {
    expect(d.sent).toBeGreaterThan(300)
    expect(d.problems).toEqual([])
  })
})
