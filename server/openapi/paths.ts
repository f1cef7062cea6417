import { snakeName } from '../../shared/query/fields.ts'
import { filterParams } from '../../shared/query/list-params.ts'
import { RESOURCES, type Resource, resourceByName } from '../../shared/resources/index.ts'
import type { JsonObject } from './json.ts'
import { names, pascal } from './schemas.ts'
import { PAGINATION, query, X_QUERY } from './service-paths.ts'

type Operation = JsonObject
type Parameter = JsonObject
type PathItem = JsonObject

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/E${s}` }]))
const header = (name: string, description: string, required = false): Parameter => ({
  name,
  in: 'header',
  required,
  schema: { type: 'string' },
  description,
})
const pathId = (name: string, resource: Resource): Parameter => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: `^${resource.prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$` },
  description: `${resource.singular} id`,
})

function valueSchema(resource: Resource, field: string): JsonObject {
  const declared = resource.fields[field]
  if (!declared) return { type: 'string', format: 'date-time' }
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
    default:
      return { type: 'string' }
  }
}

/** Query parameters of a collection read: pagination, declared filters, search and sort. */
export function listParameters(resource: Resource): Parameter[] {
  const params = [...PAGINATION]
  for (const p of filterParams(resource)) {
    const what = { eq: 'equals', gte: 'at least', lte: 'at most', gt: 'after', lt: 'before' }[p.op]
    params.push(query(p.name, valueSchema(resource, p.field), `${p.field} ${what}`))
  }
  if (resource.searchable.length > 0) {
    const fields = resource.searchable.join(', ')
    params.push(query('q', { type: 'string', maxLength: 200 }, `Full-text search in ${fields}`))
    params.push(query('search', { type: 'string', maxLength: 200 }, 'Alias of q'))
  }
  const sortable = resource.sortable.map(snakeName).join(', ')
  params.push(query('sort', { type: 'string' }, `Comma-separated keys, -key for descending: ${sortable}`))
  return params
}

function collectionItem(resource: Resource, nested: boolean): PathItem {
  const n = names(resource)
  const plural = pascal(resource.name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()))
  const tag = [resource.name]
  const scope = (s: string) => [{ oauth2: [s] }]
  const item: PathItem = {
    'x-query': X_QUERY,
    get: {
      operationId: `list${nested ? 'Nested' : ''}${plural}`,
      tags: tag,
      summary: `List ${resource.name}`,
      security: scope(resource.scopes.read),
      parameters: [...listParameters(resource), header('If-None-Match', 'Answer 304 when the ETag matches')],
      responses: {
        '200': { description: 'A page', content: { 'application/json': { schema: ref(n.list) } } },
        '304': { description: 'Not modified' },
        ...errors(400, 401, 403, 404),
      },
    },
  }
  if (!resource.writable || (resource.parent && !nested)) return item
  item.post = {
    operationId: `create${nested ? 'Nested' : ''}${pascal(resource.singular)}`,
    tags: tag,
    summary: `Create a ${resource.singular}`,
    security: scope(resource.scopes.write),
    parameters: [header('Idempotency-Key', 'Replays the first answer for the same key and body (24 h)')],
    requestBody: { required: true, content: { 'application/json': { schema: ref(n.create) } } },
    responses: {
      '201': {
        description: 'Created',
        headers: { Location: { schema: { type: 'string' } }, ETag: { schema: { type: 'string' } } },
        content: { 'application/json': { schema: ref(n.record) } },
      },
      ...errors(400, 401, 403, 404, 409, 413, 415, 422),
    },
  }
  item.delete = {
    operationId: `delete${nested ? 'Nested' : ''}${plural}`,
    tags: tag,
    summary: `Delete every matching ${resource.singular} (needs confirm=${resource.name})`,
    security: scope(resource.scopes.delete),
    parameters: [
      query('confirm', { type: 'string', enum: [resource.name] }, 'Confirms the bulk delete'),
      ...listParameters(resource).filter((p) => !PAGINATION.includes(p) && p.name !== 'sort'),
    ],
    responses: {
      '204': { description: 'Deleted', headers: { 'Deleted-Count': { schema: { type: 'integer' } } } },
      ...errors(400, 401, 403, 404, 409),
    },
  }
  return item
}

function singletonItem(resource: Resource, nested: boolean): PathItem {
  const n = names(resource)
  const base = `${nested ? 'Nested' : ''}${pascal(resource.singular)}`
  const tag = [resource.name]
  const ok = (description: string) => ({
    description,
    headers: { ETag: { schema: { type: 'string' } }, 'Last-Modified': { schema: { type: 'string' } } },
    content: { 'application/json': { schema: ref(n.record) } },
  })
  const item: PathItem = {
    get: {
      operationId: `get${base}`,
      tags: tag,
      security: [{ oauth2: [resource.scopes.read] }],
      parameters: [header('If-None-Match', 'Answer 304 when the ETag matches')],
      responses: {
        '200': ok('The record'),
        '304': { description: 'Not modified' },
        ...errors(401, 403, 404),
      },
    },
  }
  if (!resource.writable) return item
  const write = (verb: 'replace' | 'update', schema: string): Operation => ({
    operationId: `${verb}${base}`,
    tags: tag,
    security: [{ oauth2: [resource.scopes.write] }],
    parameters: [header('If-Match', 'Only change the record if it still has this ETag (else 412)')],
    requestBody: { required: true, content: { 'application/json': { schema: ref(schema) } } },
    responses: { '200': ok('The changed record'), ...errors(400, 401, 403, 404, 409, 412, 415, 422) },
  })
  item.put = write('replace', n.create)
  item.patch = write('update', n.patch)
  item.delete = {
    operationId: `delete${base}`,
    tags: tag,
    security: [{ oauth2: [resource.scopes.write] }],
    parameters: [header('If-Match', 'Only delete the record if it still has this ETag (else 412)')],
    responses: { '204': { description: 'Deleted' }, ...errors(401, 403, 404, 409, 412) },
  }
  return item
}

/** Every REST path of the declared resources, with the path parameters each needs. */
export function resourcePaths(prefix: string): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {}
  const withParams = (item: PathItem, params: Parameter[]) => ({ ...item, parameters: params })
  for (const resource of RESOURCES) {
    paths[`${prefix}/${resource.name}`] = collectionItem(resource, false)
    paths[`${prefix}/${resource.name}/{id}`] = withParams(singletonItem(resource, false), [
      pathId('id', resource),
    ])
    if (resource.parent) {
      const parent = resourceByName(resource.parent.collection)!
      const base = `${prefix}/${parent.name}/{parentId}/${resource.name}`
      paths[base] = withParams(collectionItem(resource, true), [pathId('parentId', parent)])
      paths[`${base}/{id}`] = withParams(singletonItem(resource, true), [
        pathId('parentId', parent),
        pathId('id', resource),
      ])
    }
  }
  return paths
}
