/**
 * Random valid schemas served (issue 26, item 7): each generated declaration passes the schema
 * file's check, and a real server started with it serves every collection as the contract says:
 * create (nested ones under their parent), read, filter, sort, search, update, actions, delete and
 * GraphQL's list. PROPERTY_SEED replays a run (fast-check prints its seed on failure);
 * PROPERTY_SCHEMAS serves more or fewer schemas than the default eight.
 */
import { describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { snakeCase } from '../../shared/resources/define.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import { readSchemaFile } from '../../shared/schema/file.ts'
import { validSchema } from '../support/random-schema.ts'
import { bodyOf, compareValues, expectedRecord, nthValue } from '../support/random-values.ts'
import { startTestServer } from '../support/server.ts'
import {
  call,
  checkDeletes,
  checkGraphql,
  listIds,
  ok,
  type Rec,
  type Run,
} from './random-schema-requests.ts'

const seed = Number(process.env.PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31))
const schemas = Number(process.env.PROPERTY_SCHEMAS ?? 8)

/** Creates the `n`-th record and checks it reads back as sent, with defaults for what was left out. */
async function create(run: Run, resource: Resource, base: string, n: number, full: boolean, extra = {}) {
  const idOf = (c: string) => run.firsts.get(c)!
  const body = { ...bodyOf(resource, n, full, run.tag, idOf), ...extra }
  const made = (await ok(run, 'POST', base, body, 201)) as Rec
  const parentId = resource.parent ? idOf(resource.parent.collection) : undefined
  const read = await ok(run, 'GET', `/api/v1/${resource.name}/${made.id}`, undefined, 200)
  expect(read).toMatchObject(expectedRecord(resource, body, parentId))
  return read as Rec
}

async function checkFilters(run: Run, resource: Resource, base: string, record: Rec) {
  for (const [name, field] of Object.entries(resource.fields)) {
    if (!field.filter || record[name] === null) continue
    const value = String(record[name])
    const param = snakeCase(name)
    const queries = [
      ...(field.filter !== 'range' ? [{ [param]: value }] : []),
      ...(field.filter !== 'eq' ? [{ [`${param}_gte`]: value, [`${param}_lte`]: value }] : []),
    ]
    for (const query of queries) {
      const found = (await ok(run, 'GET', `${base}?${new URLSearchParams(query)}`, undefined, 200))
        .data as Rec[]
      expect(found.map((r) => r.id)).toContain(record.id)
      for (const r of found) expect(r[name]).toEqual(record[name])
    }
  }
}

async function checkSorts(run: Run, resource: Resource, base: string, records: Rec[]) {
  for (const name of resource.sortable) {
    for (const direction of [1, -1]) {
      const sort = `${direction < 0 ? '-' : ''}${snakeCase(name)}`
      const found = (await ok(run, 'GET', `${base}?sort=${sort}`, undefined, 200)).data as Rec[]
      expect(found.map((r) => r.id).sort()).toEqual(records.map((r) => r.id).sort())
      for (let i = 1; i < found.length; i++)
        expect(direction * compareValues(found[i - 1]![name], found[i]![name])).toBeLessThanOrEqual(0)
    }
  }
}

/**
 * Following the cursor one record a page visits every record once under each sort (docs/api.md),
 * a record whose optional fields were left out (null where nothing fills them) among them.
 */
async function checkPaging(run: Run, resource: Resource, base: string, records: Rec[]) {
  const sparse = await create(run, resource, base, 4, false)
  const all = [...records, sparse].map((r) => r.id).sort()
  for (const name of resource.sortable)
    for (const sort of [snakeCase(name), `-${snakeCase(name)}`]) {
      const seen: string[] = []
      let cursor: string | undefined
      do {
        const query = new URLSearchParams({ sort, limit: '1', ...(cursor ? { cursor } : {}) })
        const page = await ok(run, 'GET', `${base}?${query}`, undefined, 200)
        seen.push(...(page.data as Rec[]).map((r) => r.id))
        cursor = (page.pagination as { nextCursor?: string }).nextCursor ?? undefined
      } while (cursor && seen.length <= all.length)
      expect({ sort, seen: [...seen].sort() }).toEqual({ sort, seen: all })
      // Null is the greatest value (docs/api.md): last ascending, first descending.
      const values = seen.map((id) => [...records, sparse].find((r) => r.id === id)![name])
      const direction = sort.startsWith('-') ? -1 : 1
      for (let i = 1; i < values.length; i++)
        expect(direction * compareValues(values[i - 1], values[i])).toBeLessThanOrEqual(0)
    }
  await ok(run, 'DELETE', `/api/v1/${resource.name}/${sparse.id}`, undefined, 204)
}

/** Runs each action on `record`; the answer is the record after them. */
async function checkActions(run: Run, resource: Resource, record: Rec): Promise<Rec> {
  let current = record
  for (const action of resource.actions.filter((a) => a.field !== undefined)) {
    const path = `/api/v2/${resource.name}/${record.id}/${action.name}`
    const field = action.field!
    const answer = await call(run, 'POST', path)
    if (!action.from!.includes(current[field] as string)) {
      expect(answer.status).toBe(409)
      continue
    }
    expect(answer.status).toBe(200)
    expect(answer.body[field]).toEqual(action.to)
    current = answer.body as Rec
    const data = (
      await ok(run, 'GET', `/api/v1/events?type=${resource.eventName}.${action.past}`, undefined, 200)
    ).data as Rec[]
    expect(data.map((e) => e.resourceId)).toContain(record.id)
  }
  // v2 answered the actions (an amount with its currency is one object there): the record as v1 has it.
  return (await ok(run, 'GET', `/api/v1/${resource.name}/${record.id}`, undefined, 200)) as Rec
}

async function exercise(run: Run, resource: Resource) {
  const parent = resource.parent
  const base = parent
    ? `/api/v1/${parent.collection}/${run.firsts.get(parent.collection)}/${resource.name}`
    : `/api/v1/${resource.name}`
  // Only what is required: defaults fill the rest. Deleted at once, it leaves nulls out of the sorts.
  const bare = await create(run, resource, base, 0, false)
  await ok(run, 'DELETE', `/api/v1/${resource.name}/${bare.id}`, undefined, 204)
  expect((await call(run, 'GET', `/api/v1/${resource.name}/${bare.id}`)).status).toBe(404)
  // The third record starts where the first action can run from.
  const first = resource.actions.find((a) => a.field && resource.writableFields.includes(a.field))
  const records: Rec[] = []
  for (const n of [1, 2, 3])
    records.push(
      await create(run, resource, base, n, true, n === 3 && first ? { [first.field!]: first.from![0] } : {}),
    )
  run.firsts.set(resource.name, records[0]!.id)
  run.live.set(resource.name, records)
  await checkFilters(run, resource, base, records[1]!)
  await checkSorts(run, resource, base, records)
  await checkPaging(run, resource, base, records)
  for (const name of resource.searchable) {
    const word = records[1]![name]
    if (typeof word === 'string')
      expect(await listIds(run, `${base}?q=${encodeURIComponent(word)}`)).toContain(records[1]!.id)
  }
  // An update of a field a client writes, references last: their one target would change nothing.
  const writable = [...resource.writableFields].sort(
    (a, b) => Number(!!resource.fields[a]!.references) - Number(!!resource.fields[b]!.references),
  )[0]!
  // A reference to a collection with no record yet (nullable, to a later one) is set to null.
  const value = nthValue(resource.fields[writable]!, 7, run.tag, (c) => run.firsts.get(c)!) ?? null
  const patched = await ok(
    run,
    'PATCH',
    `/api/v1/${resource.name}/${records[0]!.id}`,
    { [writable]: value },
    200,
  )
  expect(patched[writable]).toEqual(value)
  records[0] = (await ok(run, 'GET', `/api/v1/${resource.name}/${records[0]!.id}`, undefined, 200)) as Rec
  expect(records[0][writable]).toEqual(value)
  records[2] = await checkActions(run, resource, records[2]!)
  await checkGraphql(run, resource, records)
  await checkMoney(run, resource, records)
}

/** v2 shows an amount with its currency as one money object, and not the currency field alone. */
async function checkMoney(run: Run, resource: Resource, records: Rec[]) {
  const amount = Object.keys(resource.fields).find((f) => resource.fields[f]!.currencyField)
  if (!amount) return
  const currency = resource.fields[amount]!.currencyField!
  for (const record of records) {
    if (record[amount] === null || record[currency] === null) continue
    const v2 = await ok(run, 'GET', `/api/v2/${resource.name}/${record.id}`, undefined, 200)
    expect(v2[amount]).toEqual({ value: record[amount], currency: record[currency] })
    expect(v2).not.toHaveProperty(currency)
  }
}

async function serveSchema(declaration: SchemaDeclaration) {
  const schema = schemaFromDeclaration(declaration)
  const server = await startTestServer({ schema })
  try {
    const tenant = await server.tenant()
    const run: Run = {
      tenant,
      tag: Math.random()
        .toString(36)
        .replace(/[^a-z]/g, '')
        .slice(0, 6),
      firsts: new Map(),
      live: new Map(),
    }
    const user = await ok(
      run,
      'POST',
      '/api/v1/users',
      { name: 'Prop', email: `prop.${run.tag}@example.com` },
      201,
    )
    run.firsts.set('users', user.id as string)
    // The file's order, in which a collection's parent and required references come first (the
    // schema's own order may put a collection first that a nullable reference names).
    const declared = Object.keys(declaration.resources).map((name) => schema.byName(name)!)
    for (const resource of declared) await exercise(run, resource)
    await checkDeletes(run, declared)
  } finally {
    await server.stop()
  }
}

describe('random valid schemas', () => {
  it('pass the schema file check as generated', () => {
    const dir = mkdtempSync(join(tmpdir(), 'api-random-schema-'))
    try {
      fc.assert(
        fc.property(validSchema, (declaration) => {
          const path = join(dir, 'schema.json')
          writeFileSync(path, JSON.stringify(declaration))
          expect(readSchemaFile(path)).toEqual({ declaration })
        }),
        { seed, numRuns: 200 },
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('are served as the contract says: create, read, filter, sort, q, update, actions, delete, GraphQL', async () => {
    await fc.assert(fc.asyncProperty(validSchema, serveSchema), {
      seed,
      numRuns: schemas,
      endOnFailure: true,
    })
  }, 600_000)
})
