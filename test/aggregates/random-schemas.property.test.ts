import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { pluralField } from '../../server/graphql/names.ts'
import { groupableKeys, orderedFields, summableFields } from '../../shared/query/aggregate-params.ts'
import { camelCase } from '../../shared/query/fields.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import { ok, type Run } from '../property/random-schema-requests.ts'
import { validSchema } from '../support/random-schema.ts'
import { bodyOf } from '../support/random-values.ts'
import { startTestServer } from '../support/server.ts'

/**
 * Aggregates of random valid schemas (test/support/random-schema.ts), through an SQL body and
 * through GraphQL: every groupable key of every declared collection, with every function on a
 * field it takes, answers on both doors, and both count the same groups. PROPERTY_SEED replays a
 * run, PROPERTY_SCHEMAS serves more or fewer schemas than the default four.
 */

const seed = Number(process.env.PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31))
const schemas = Number(process.env.PROPERTY_SCHEMAS ?? 4)
const RECORDS = 3

type Group = Record<string, unknown>

/** The SQL of a key (`status`, `date_trunc('day', created_at)`) and its GraphQL groupBy name. */
function keyForms(key: string): { sql: string; graphql: string; field: string } {
  const [name, bucket] = key.split(':')
  const field = camelCase(name!)
  return bucket
    ? { sql: `date_trunc('${bucket}', ${name})`, graphql: `${field}_${bucket}`, field }
    : { sql: name!, graphql: field, field }
}

const counts = (groups: { key: string; count: number }[]) => groups.map((g) => `${g.key}=${g.count}`).sort()

async function checkAggregates(run: Run, resource: Resource, base: string) {
  const summable = summableFields(resource)
  const ordered = orderedFields(resource)
  const snake = (f: string) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
  const calls = [
    'count(*)',
    ...summable.flatMap((f) => [`sum(${snake(f)})`, `avg(${snake(f)})`]),
    ...ordered.flatMap((f) => [`min(${snake(f)})`, `max(${snake(f)})`]),
  ]
  const selection = [
    'count',
    ...(summable.length > 0 ? [`sum { ${summable.join(' ')} }`, `avg { ${summable.join(' ')} }`] : []),
    `min { ${ordered.join(' ')} }`,
    `max { ${ordered.join(' ')} }`,
  ].join(' ')
  for (const key of groupableKeys(resource)) {
    const { sql, graphql, field } = keyForms(key)
    const body = `SELECT ${sql}, ${calls.join(', ')} FROM ${resource.table} GROUP BY ${sql} LIMIT 100`
    const response = await run.tenant.fetch(base, {
      method: 'QUERY',
      headers: { 'Content-Type': 'application/sql' },
      body,
    })
    const text = await response.text()
    expect({ body, status: response.status, text: response.status === 200 ? '' : text }).toEqual({
      body,
      status: 200,
      text: '',
    })
    const fromSql = (JSON.parse(text).data as Group[]).map((g) => ({
      key: JSON.stringify(g[field] ?? null),
      count: g.count as number,
    }))
    expect(fromSql.reduce((n, g) => n + g.count, 0)).toBe(RECORDS)
    const query = `{ ${pluralField(resource)}Aggregate(groupBy: [${graphql}], first: 100) { key { ${field} } ${selection} } }`
    const answer = await ok(run, 'POST', '/graphql', { query }, 200)
    expect({ query, errors: answer.errors }).toEqual({ query, errors: undefined })
    const groups = Object.values(answer.data as object)[0] as { key: Group; count: number }[]
    const fromGraphql = groups.map((g) => ({ key: JSON.stringify(g.key[field] ?? null), count: g.count }))
    // Enums may carry another name in GraphQL (`_2fa`): the counts per group are what must agree.
    expect(counts(fromGraphql).map((c) => c.split('=')[1])).toEqual(
      counts(fromSql).map((c) => c.split('=')[1]),
    )
  }
}

async function serveSchema(declaration: SchemaDeclaration) {
  const schema = schemaFromDeclaration(declaration)
  const server = await startTestServer({ schema })
  try {
    const tenant = await server.tenant()
    const run: Run = { tenant, tag: 'agg', firsts: new Map(), live: new Map() }
    const user = await ok(run, 'POST', '/api/v1/users', { name: 'Agg', email: 'agg@example.com' }, 201)
    run.firsts.set('users', user.id as string)
    const declared = Object.keys(declaration.resources).map((name) => schema.byName(name)!)
    for (const resource of declared) {
      const parent = resource.parent
      const base = parent
        ? `/api/v1/${parent.collection}/${run.firsts.get(parent.collection)}/${resource.name}`
        : `/api/v1/${resource.name}`
      for (let n = 1; n <= RECORDS; n++) {
        const made = await ok(
          run,
          'POST',
          base,
          bodyOf(resource, n, true, run.tag, (c) => run.firsts.get(c)!),
          201,
        )
        if (n === 1) run.firsts.set(resource.name, made.id as string)
      }
      await checkAggregates(run, resource, base)
    }
  } finally {
    await server.stop()
  }
}

describe('aggregates of random valid schemas', () => {
  it('answer every groupable key with every function, through SQL and GraphQL alike', async () => {
    await fc.assert(fc.asyncProperty(validSchema, serveSchema), {
      seed,
      numRuns: schemas,
      endOnFailure: true,
    })
  }, 600_000)
})
