import { snakeName } from '../../shared/query/fields.ts'
import { type FilterParam, filterParams } from '../../shared/query/list-params.ts'
import { relationsOf } from '../../shared/query/shape.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { JsonObject } from './json.ts'
import { PAGINATION, query, shapeParameters } from './parameters.ts'

type Parameter = JsonObject

/** Enum and reference equality filters take a comma-separated list (`status=paid,shipped`). */
const takesList = (resource: Resource, p: FilterParam) =>
  p.op === 'eq' && ['enum', 'reference'].includes(resource.fields[p.field]?.kind ?? '')

function valueSchema(resource: Resource, p: FilterParam): JsonObject {
  const declared = resource.fields[p.field]
  if (!declared) {
    // created_after and the like: the service reads a date as midnight UTC (docs/api.md).
    return {
      anyOf: [
        { type: 'string', format: 'date' },
        { type: 'string', format: 'date-time' },
      ],
    }
  }
  switch (declared.kind) {
    case 'integer':
      return { type: 'integer' }
    case 'boolean':
      return { type: 'boolean' }
    case 'enum':
      return {
        type: 'string',
        description: `One or several (comma-separated) of: ${declared.values!.join(', ')}`,
      }
    case 'reference':
      return { type: 'string', description: `One or several (comma-separated) ${declared.references} ids` }
    default:
      return { type: 'string' }
  }
}

const DESCRIBE_OP = { eq: 'equals', gte: 'at least', lte: 'at most', gt: 'after', lt: 'before' }

/** Query parameters of a collection read: pagination, declared filters, search and sort. */
export function listParameters(schema: Schema, resource: Resource): Parameter[] {
  const params = [...PAGINATION]
  for (const p of filterParams(resource)) {
    const strict = p.op === 'gt' || p.op === 'lt' ? ' (a date is midnight UTC; no offset means UTC)' : ''
    params.push(
      query(p.name, valueSchema(resource, p), `${snakeName(p.field)} ${DESCRIBE_OP[p.op]}${strict}`),
    )
  }
  if (resource.searchable.length > 0) {
    const fields = resource.searchable.join(', ')
    params.push(query('q', { type: 'string', maxLength: 200 }, `Full-text search in ${fields}`))
    params.push(query('search', { type: 'string', maxLength: 200 }, 'Alias of q'))
  }
  const sortable = resource.sortable.map(snakeName).join(', ')
  params.push(query('sort', { type: 'string' }, `Comma-separated keys, -key for descending: ${sortable}`))
  params.push(...resourceShapeParameters(schema, resource))
  return params
}

/** `fields`, `expand` and `expand_limit` of a resource's reads, naming its relations. */
export function resourceShapeParameters(schema: Schema, resource: Resource): Parameter[] {
  return shapeParameters(relationsOf(schema, resource).map((r) => r.name))
}

/** The names a JSON QUERY body may also give as an array: `fields` and `expand`. */
const NAME_LISTS = ['fields', 'expand']

/**
 * The bodies of a form and a JSON QUERY: the GET's parameters by name; a JSON body writes numbers
 * and booleans as JSON, a list as an array, and may add `filter` (docs/query.md).
 */
export function queryBodySchemas(schema: Schema, resource: Resource): { form: JsonObject; json: JsonObject } {
  const lists = new Set(
    filterParams(resource)
      .filter((p) => takesList(resource, p))
      .map((p) => p.name),
  )
  for (const name of NAME_LISTS) lists.add(name)
  const form: Record<string, JsonObject> = {}
  const json: Record<string, JsonObject> = {}
  for (const p of listParameters(schema, resource)) {
    const name = p.name as string
    const schema = { ...(p.schema as JsonObject), description: p.description }
    form[name] = schema
    json[name] = lists.has(name)
      ? {
          anyOf: [p.schema, { type: 'array', minItems: 1, maxItems: 100, items: { type: 'string' } }],
          description: p.description,
        }
      : schema
  }
  json.filter = {
    type: 'string',
    description: 'A filter expression (docs/filter-grammar.md), ANDed with the rest',
  }
  const object = (properties: Record<string, JsonObject>, description: string) => ({
    type: 'object',
    description,
    properties,
    additionalProperties: false,
  })
  return {
    form: object(form, `A QUERY of ${resource.name} as a form: the parameters of its GET`),
    json: object(json, `A QUERY of ${resource.name} as JSON: the parameters of its GET, and filter`),
  }
}
