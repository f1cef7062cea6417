import { SHAPE_PARAMS } from '../../shared/query/shape.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { withArticle } from '../../shared/words.ts'
import { sqlExample } from '../query/sql-examples.ts'
import { actionItem } from './action-paths.ts'
import { aggregatePageRef } from './aggregate-paths.ts'
import { errorRefs } from './error-responses.ts'
import { headerRefs, TABULAR_CONTENT, TABULAR_HEADERS } from './headers.ts'
import type { JsonObject } from './json.ts'
import { listParameters, resourceShapeParameters } from './list-parameters.ts'
import { CONDITIONAL_GET, header, PAGINATION, query } from './parameters.ts'

const SHAPE_NAMES: readonly string[] = SHAPE_PARAMS

import { pascal } from '../../shared/words.ts'
import { type QueryField, queryOperation } from './query-operation.ts'
import { names } from './schemas.ts'

type Operation = JsonObject
type Parameter = JsonObject
type PathItem = JsonObject

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const pathId = (name: string, resource: Resource): Parameter => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: `^${resource.prefix}_[0-7][0-9a-hjkmnp-tv-z]{25}$` },
  description: `The ${words(resource.singular)}'s id`,
})

/** `lineItem` -> `line item`, `line-items` -> `line items`. */
const words = (name: string) => name.replace(/-/g, ' ').replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)
/** English's article by sound: "an order", "an address", but "a user". */
const a = withArticle

const BULK_DESCRIPTION =
  'A JSON body creates one record. A text/csv or application/x-ndjson body creates up to 1,000 records in one transaction, each validated as a JSON create: all or nothing, an error naming row and field (rows[12].pages). docs/bulk.md, "CSV and NDJSON in".'
const VALIDATE_ONLY =
  'With a CSV or NDJSON body: true checks every record (references and unique values too) and writes nothing'
const CSV_BODY =
  'RFC 4180: a header row naming the fields as the record shows them (v2 money as amount.value, amount.currency), then one record a row; an empty cell is null for a nullable field and absent otherwise'
const NDJSON_BODY = 'One JSON object a line, each exactly a JSON create body; blank lines are ignored'

function collectionItem(
  schema: Schema,
  resource: Resource,
  nested: boolean,
  queryField: QueryField,
  groups: boolean,
): PathItem {
  const n = names(resource)
  const plural = pascal(resource.name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()))
  const id = nested ? `Nested${plural}` : plural
  const tags = [resource.name]
  const scope = (s: string) => [{ oauth2: [s] }]
  const parent = resource.parent ? words(schema.byName(resource.parent.collection)!.singular) : ''
  const of = nested ? ` of ${a(parent)}` : ''
  // "the line items of an order" (nested), "the line items of every order" (standalone), "orders".
  const listed = resource.parent
    ? `the ${words(resource.name)}${nested ? of : ` of every ${parent}`}`
    : words(resource.name)
  const missingParent = nested ? [404] : []
  const page = headerRefs('ETag', 'Last-Modified', 'Accept-Query')
  const item: PathItem = {
    get: {
      operationId: `list${id}`,
      tags,
      summary: `List ${listed}`,
      description:
        'Newest first unless sorted; 20 a page unless limit says otherwise. Pagination styles: docs/api.md.',
      security: scope(resource.scopes.read),
      parameters: [...listParameters(schema, resource), ...CONDITIONAL_GET],
      responses: {
        '200': {
          description: 'A page; by Accept, its records as CSV or NDJSON (docs/bulk.md)',
          headers: { ...page, ...TABULAR_HEADERS },
          content: { 'application/json': { schema: ref(n.list) }, ...TABULAR_CONTENT },
        },
        '304': { description: 'Not modified', headers: page },
        ...errorRefs(400, 401, 403, ...missingParent, 406),
      },
    },
    [queryField]: queryOperation({
      operationId: `query${id}`,
      summary: `Query ${listed}`,
      tags,
      security: scope(resource.scopes.read),
      formSchema: ref(n.queryForm),
      jsonSchema: ref(n.queryJson),
      // An SQL body with GROUP BY, HAVING or an aggregate answers groups (docs/bulk.md).
      page: groups ? { anyOf: [ref(n.queryPage), aggregatePageRef(resource)] } : ref(n.queryPage),
      formExample: { limit: 10, sort: '-created_at' },
      jsonExample: { created_after: '2026-01-01', sort: '-created_at', limit: 10 },
      sqlExample: sqlExample(resource.table),
      jsonPathExample: `$[?@.createdAt >= '2026-01-01']`,
      nested,
    }),
  }
  if (!resource.writable || (resource.parent && !nested)) return item
  item.post = {
    operationId: `create${nested ? 'Nested' : ''}${pascal(resource.singular)}`,
    tags,
    summary: nested
      ? `Add ${a(words(resource.singular))} to ${a(parent)}`
      : `Create ${a(words(resource.singular))}`,
    security: scope(resource.scopes.write),
    description: BULK_DESCRIPTION,
    parameters: [
      header('Idempotency-Key', 'Replays the first answer for the same key and body (24 h)'),
      query('validate_only', { type: 'string', enum: ['true', 'false'] }, VALIDATE_ONLY),
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': { schema: ref(n.create) },
        'text/csv': { schema: { type: 'string', description: CSV_BODY } },
        'application/x-ndjson': { schema: { type: 'string', description: NDJSON_BODY } },
      },
    },
    responses: {
      '200': {
        description: 'validate_only=true: every record checked, nothing written',
        content: { 'application/json': { schema: ref('BulkValidated') } },
      },
      '201': {
        description:
          'Created (or, with Idempotent-Replayed, the first answer for this Idempotency-Key): the record for a JSON body; the new ids in input order for a CSV or NDJSON body',
        headers: headerRefs('Location', 'ETag', 'Last-Modified', 'Accept-Query', 'Idempotent-Replayed'),
        content: { 'application/json': { schema: { oneOf: [ref(n.record), ref('BulkCreated')] } } },
      },
      ...errorRefs(400, 401, 403, ...missingParent, 409, 415, 422),
    },
  }
  item.delete = {
    operationId: `delete${id}`,
    tags,
    summary: `Delete every matching ${words(resource.singular)}${of} (confirm=${resource.name})`,
    description: 'Deletes every record the filters match, in one transaction; without a filter, all of them.',
    security: scope(resource.scopes.delete),
    parameters: [
      query('confirm', { type: 'string', enum: [resource.name] }, 'Confirms the bulk delete', true),
      ...listParameters(schema, resource).filter(
        (p) => !PAGINATION.includes(p) && !SHAPE_NAMES.includes(p.name as string) && p.name !== 'sort',
      ),
    ],
    responses: {
      '204': { description: 'Deleted', headers: headerRefs('Deleted-Count', 'Accept-Query') },
      ...errorRefs(400, 401, 403, ...missingParent, 409),
    },
  }
  return item
}

function singletonItem(schema: Schema, resource: Resource, nested: boolean): PathItem {
  const n = names(resource)
  const base = `${nested ? 'Nested' : ''}${pascal(resource.singular)}`
  const tags = [resource.name]
  const noun = a(words(resource.singular))
  const of = nested ? ` of ${a(words(schema.byName(resource.parent!.collection)!.singular))}` : ''
  const tagged = headerRefs('ETag', 'Last-Modified')
  const ok = (description: string) => ({
    description,
    headers: tagged,
    content: { 'application/json': { schema: ref(n.record) } },
  })
  const item: PathItem = {
    get: {
      operationId: `get${base}`,
      tags,
      summary: `Get ${noun}${of}`,
      security: [{ oauth2: [resource.scopes.read] }],
      parameters: [...resourceShapeParameters(schema, resource), ...CONDITIONAL_GET],
      responses: {
        '200': {
          description: 'The record; with fields or expand, shaped as they ask',
          headers: tagged,
          content: {
            'application/json': { schema: { anyOf: [ref(n.record), ref(n.shaped)] } },
          },
        },
        '304': { description: 'Not modified', headers: tagged },
        ...errorRefs(400, 401, 403, 404),
      },
    },
  }
  if (!resource.writable) return item
  const write = (verb: 'replace' | 'update', schema: string, summary: string): Operation => ({
    operationId: `${verb}${base}`,
    tags,
    summary: `${summary} ${noun}${of}`,
    security: [{ oauth2: [resource.scopes.write] }],
    parameters: [header('If-Match', 'Only change the record if it still has this ETag (else 412)')],
    requestBody: { required: true, content: { 'application/json': { schema: ref(schema) } } },
    responses: { '200': ok('The changed record'), ...errorRefs(400, 401, 403, 404, 409, 412, 415, 422) },
  })
  item.put = write('replace', n.create, 'Replace')
  item.patch = write('update', n.patch, 'Update')
  item.delete = {
    operationId: `delete${base}`,
    tags,
    summary: `Delete ${noun}${of}`,
    security: [{ oauth2: [resource.scopes.write] }],
    parameters: [header('If-Match', 'Only delete the record if it still has this ETag (else 412)')],
    responses: { '204': { description: 'Deleted' }, ...errorRefs(400, 401, 403, 404, 409, 412) },
  }
  return item
}

/**
 * Every REST path of the declared resources, with the path parameters each needs; with `groups`
 * (the document describes the aggregates) a collection's QUERY may also answer its groups.
 */
export function resourcePaths(
  schema: Schema,
  prefix: string,
  queryField: QueryField,
  groups = false,
): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {}
  const withParams = (item: PathItem, params: Parameter[]) => ({ parameters: params, ...item })
  for (const resource of schema.resources) {
    paths[`${prefix}/${resource.name}`] = collectionItem(schema, resource, false, queryField, groups)
    paths[`${prefix}/${resource.name}/{id}`] = withParams(singletonItem(schema, resource, false), [
      pathId('id', resource),
    ])
    for (const action of resource.actions)
      paths[`${prefix}/${resource.name}/{id}/${action.name}`] = withParams(actionItem(resource, action), [
        pathId('id', resource),
      ])
    if (resource.parent) {
      const parent = schema.byName(resource.parent.collection)!
      const base = `${prefix}/${parent.name}/{parentId}/${resource.name}`
      paths[base] = withParams(collectionItem(schema, resource, true, queryField, groups), [
        pathId('parentId', parent),
      ])
      paths[`${base}/{id}`] = withParams(singletonItem(schema, resource, true), [
        pathId('parentId', parent),
        pathId('id', resource),
      ])
    }
  }
  return paths
}
