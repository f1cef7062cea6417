import {
  AGGREGATE_FUNCTIONS,
  groupableKeys,
  MAX_AGGREGATES,
  MAX_GROUP_KEYS,
  orderedFields,
  summableFields,
} from '../../shared/query/aggregate-params.ts'
import { camelCase, queryField, snakeName } from '../../shared/query/fields.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { pascal, withArticle } from '../../shared/words.ts'
import { errorRefs } from './error-responses.ts'
import { headerRefs, TABULAR_CONTENT, TABULAR_HEADERS } from './headers.ts'
import type { JsonObject } from './json.ts'
import { listParameters } from './list-parameters.ts'
import { CONDITIONAL_GET, PAGINATION, query } from './parameters.ts'
import { type QueryField, queryOperation } from './query-operation.ts'

/**
 * `GET` and `QUERY /{collection}/aggregates` (and nested) in the current version's document, with
 * a typed answer per collection (docs/bulk.md, "Aggregates").
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const names = (resource: Resource) => {
  const base = pascal(resource.singular)
  return {
    page: `${base}Aggregates`,
    group: `${base}AggregateGroup`,
    form: `${base}AggregateForm`,
    json: `${base}AggregateJson`,
  }
}

/** The answer of a collection's aggregates (`OrderAggregates`), which an SQL body with GROUP BY gets too. */
export const aggregatePageRef = (resource: Resource) => ref(names(resource).page)

/** Every `aggregate=` item a collection takes: `count`, `sum(pages)`, ..., `max(title)`. */
function aggregateItems(resource: Resource): string[] {
  const items = ['count']
  for (const fn of AGGREGATE_FUNCTIONS.slice(1)) {
    const fields = fn === 'sum' || fn === 'avg' ? summableFields(resource) : orderedFields(resource)
    for (const field of fields) items.push(`${fn}(${snakeName(field)})`)
  }
  return items
}

/** The parameters of a collection's aggregates: its filters and q, group_by, aggregate, sort, pages. */
function aggregateParameters(schema: Schema, resource: Resource): JsonObject[] {
  const own = new Set([
    'sort',
    'fields',
    'expand',
    'expand_limit',
    ...PAGINATION.map((p) => p.name as string),
  ])
  const list = (items: string[], max: number) => ({
    type: 'array',
    items: { type: 'string', enum: items },
    minItems: 1,
    maxItems: max,
  })
  const commaSeparated = { style: 'form', explode: false }
  return [
    ...PAGINATION.filter((p) => p.name !== 'after'),
    ...listParameters(schema, resource).filter((p) => !own.has(p.name as string)),
    {
      ...query(
        'group_by',
        list(groupableKeys(resource), MAX_GROUP_KEYS),
        `Comma-separated keys, each field at most once: one item per group; without it, one item in all`,
      ),
      ...commaSeparated,
    },
    {
      ...query(
        'aggregate',
        list(aggregateItems(resource), MAX_AGGREGATES),
        'Comma-separated aggregates (default count): sum and avg of integer fields, min and max of sortable ones',
      ),
      ...commaSeparated,
    },
    query(
      'sort',
      { type: 'string' },
      'Comma-separated group keys (by field name) and aggregates asked for, -key for descending (`-count`, `-sum(amount)`); default the group keys ascending',
    ),
  ]
}

/** The JSON value of `field` as a group key or a min/max shows it (money amounts in minor units). */
function valueSchema(resource: Resource, name: string, orNull: boolean): JsonObject {
  const field = queryField(resource, name)!
  const type =
    field.kind === 'integer'
      ? { type: 'integer' }
      : field.kind === 'boolean'
        ? { type: 'boolean' }
        : field.kind === 'enum'
          ? { type: 'string', enum: [...field.values!] }
          : field.kind === 'timestamp'
            ? { type: 'string', format: 'date-time' }
            : { type: 'string' }
  if (!orNull && !field.nullable) return type
  return { anyOf: [type, { type: 'null' }] }
}

/** Schemas of the aggregates' answer and QUERY bodies, per collection. */
export function aggregateSchemas(schema: Schema): Record<string, JsonObject> {
  const schemas: Record<string, JsonObject> = {}
  for (const resource of schema.resources) {
    const n = names(resource)
    const keys = [...new Set(groupableKeys(resource).map((k) => camelCase(k.split(':')[0]!)))]
    const byField = (fields: string[], value: (field: string) => JsonObject) => ({
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f, value(f)])),
      additionalProperties: false,
    })
    const summable = summableFields(resource)
    const ordered = orderedFields(resource)
    schemas[n.group] = {
      type: 'object',
      description: `One group of ${resource.name}: its keys (a timestamp as the instant its bucket starts), then the aggregates asked for`,
      properties: {
        ...Object.fromEntries(keys.map((k) => [k, valueSchema(resource, k, false)])),
        count: { type: 'integer', minimum: 0 },
        sum: byField(summable, () => ({ type: 'integer' })),
        avg: byField(summable, () => ({ type: ['number', 'null'] })),
        min: byField(ordered, (f) => valueSchema(resource, f, true)),
        max: byField(ordered, (f) => valueSchema(resource, f, true)),
      },
      additionalProperties: false,
    }
    schemas[n.page] = {
      type: 'object',
      required: ['data', 'pagination'],
      properties: {
        data: { type: 'array', items: ref(n.group) },
        pagination: ref('Pagination'),
        filters: { type: 'object', description: 'The applied filters, keyed by parameter name' },
      },
    }
    const parameters = aggregateParameters(schema, resource)
    const properties: Record<string, JsonObject> = Object.fromEntries(
      parameters.map((p) => [p.name, { ...(p.schema as JsonObject), description: p.description }]),
    )
    const form = Object.fromEntries(
      Object.entries(properties).map(([k, v]) => [
        k,
        v.type === 'array' ? { type: 'string', description: v.description } : v,
      ]),
    )
    const body = (props: JsonObject, description: string) => ({
      type: 'object',
      description,
      properties: props,
      additionalProperties: false,
    })
    schemas[n.form] = body(
      form,
      `A QUERY of ${resource.name}'s aggregates as a form: the parameters of its GET`,
    )
    schemas[n.json] = body(
      properties,
      `A QUERY of ${resource.name}'s aggregates as JSON: the parameters of its GET, lists as arrays`,
    )
  }
  return schemas
}

function aggregatesItem(
  schema: Schema,
  resource: Resource,
  nested: boolean,
  queryField: QueryField,
): JsonObject {
  const n = names(resource)
  const plural = pascal(camelCase(resource.name.replace(/-/g, '_')))
  const id = `${nested ? 'Nested' : ''}${plural}`
  const tags = [resource.name]
  const security = [{ oauth2: [resource.scopes.read] }]
  const parent = resource.parent && schema.byName(resource.parent.collection)!.singular
  const what = `${resource.name.replace(/-/g, ' ')}${nested ? ` of ${withArticle(parent!)}` : ''}`
  const headers = headerRefs('ETag', 'Last-Modified', 'Accept-Query')
  const missing = nested ? [404] : []
  return {
    get: {
      operationId: `aggregate${id}`,
      tags,
      summary: `Count and sum ${what} by group`,
      description:
        'Counts, sums, averages, minimums and maximums per group of what the filters keep, paged like a list (no keyset `after`: a group is not a record). See docs/bulk.md.',
      security,
      parameters: [...aggregateParameters(schema, resource), ...CONDITIONAL_GET],
      responses: {
        '200': {
          description: 'A page of groups; by Accept, the groups as CSV or NDJSON (docs/bulk.md)',
          headers: { ...headers, ...TABULAR_HEADERS },
          content: { 'application/json': { schema: ref(n.page) }, ...TABULAR_CONTENT },
        },
        '304': { description: 'Not modified', headers },
        ...errorRefs(400, 401, 403, ...missing, 406),
      },
    },
    [queryField]: queryOperation({
      operationId: `queryAggregate${id}`,
      summary: `Count and sum ${what} by group, the query in the body`,
      tags,
      security,
      formSchema: ref(n.form),
      jsonSchema: ref(n.json),
      page: ref(n.page),
      formExample: { aggregate: 'count' },
      jsonExample: { aggregate: ['count'], limit: 10 },
      nested,
    }),
  }
}

/** The aggregates paths of every collection under `prefix`, nested ones too. */
export function aggregatePaths(
  schema: Schema,
  prefix: string,
  queryField: QueryField,
): Record<string, JsonObject> {
  const paths: Record<string, JsonObject> = {}
  for (const resource of schema.resources) {
    paths[`${prefix}/${resource.name}/aggregates`] = aggregatesItem(schema, resource, false, queryField)
    if (!resource.parent) continue
    const parent = schema.byName(resource.parent.collection)!
    paths[`${prefix}/${parent.name}/{parentId}/${resource.name}/aggregates`] = {
      parameters: [
        {
          name: 'parentId',
          in: 'path',
          required: true,
          schema: { type: 'string', pattern: `^${parent.prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$` },
          description: `The ${parent.singular}'s id`,
        },
      ],
      ...aggregatesItem(schema, resource, true, queryField),
    }
  }
  return paths
}
