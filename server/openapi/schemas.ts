import { ERROR_STATUS } from '../../shared/errors.ts'
import { relationsOf } from '../../shared/query/shape.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema as Served } from '../../shared/schema/schema.ts'
import { pascal } from '../../shared/words.ts'
import { type ApiVersion, schemaFor } from '../versions/versions.ts'
import type { JsonObject } from './json.ts'
import { queryBodySchemas } from './list-parameters.ts'

type Schema = JsonObject

/** TypeBox schemas are JSON Schema; a JSON round trip drops TypeBox's symbol keys. */
const plain = (schema: unknown): Schema => JSON.parse(JSON.stringify(schema)) as Schema

/** Component names of a resource: `Order`, `OrderCreate`, `OrderPatch`, `OrderList`, ... */
export const names = (resource: Resource) => {
  const base = pascal(resource.singular)
  return {
    record: base,
    create: `${base}Create`,
    patch: `${base}Patch`,
    list: `${base}List`,
    columns: `${base}Columns`,
    queryPage: `${base}QueryPage`,
    queryForm: `${base}QueryForm`,
    queryJson: `${base}QueryJson`,
    shaped: `${base}Shaped`,
  }
}

/**
 * The fields a write sends. `kind` 'create' (POST and PUT) shows each field's default, which an
 * omitted field takes; a PATCH changes only what it carries, so its fields have none (a generator
 * such as openapi-typescript would make a defaulted field required in a partial update).
 */
function writableProperties(resource: Resource, kind: 'create' | 'patch'): Record<string, Schema> {
  const properties: Record<string, Schema> = {}
  for (const name of resource.writableFields) {
    const field = resource.fields[name]!
    const schema = plain(field.schema)
    // TypeBox may carry the default in the field's own schema too.
    if (kind === 'patch') delete schema.default
    properties[name] = field.nullable ? { oneOf: [schema, { type: 'null' }] } : schema
    if (kind === 'create' && field.default !== undefined && field.default !== null)
      properties[name]!.default = field.default
    if (field.defaultToCaller)
      properties[name]!.description =
        'On create, when omitted: the user the token was issued for (null for a client-credentials token).'
  }
  return properties
}

/**
 * A record as `fields` and `expand` shape it: any of its fields (id always), and each expanded
 * relation: the record a reference names (null when it is gone), or the first page of a nested
 * collection.
 */
function shapedSchema(served: Served, resource: Resource, record: Schema): Schema {
  const { required: _all, ...rest } = record
  const properties = { ...(record.properties as Record<string, Schema>) }
  for (const relation of relationsOf(served, resource)) {
    const target = { $ref: `#/components/schemas/${names(relation.target).shaped}` }
    properties[relation.name] =
      relation.kind === 'reference'
        ? { anyOf: [target, { type: 'null' }], description: `With expand=${relation.name}` }
        : {
            type: 'object',
            description: `With expand=${relation.name}: the first page (expand_limit, 20 by default)`,
            required: ['data', 'pagination'],
            additionalProperties: false,
            properties: {
              data: { type: 'array', items: target },
              pagination: { $ref: '#/components/schemas/Pagination' },
            },
          }
  }
  return {
    ...rest,
    required: ['id'],
    properties,
    description: `A ${resource.singular} with the fields fields names, and the relations expand names`,
  }
}

/** The component schemas of every resource in a version's shape, plus the error body and pagination shapes. */
export function componentSchemas(served: Served, version: ApiVersion): Record<string, Schema> {
  const schemas: Record<string, Schema> = {
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message', 'details'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
            message: { type: 'string' },
            details: {
              type: 'array',
              items: {
                type: 'object',
                required: ['field', 'message'],
                properties: { field: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        },
      },
    },
    BulkCreated: {
      description: 'The records a CSV or NDJSON create made, in input order',
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'array',
          maxItems: 1000,
          items: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } },
        },
      },
    },
    BulkValidated: {
      description: 'A CSV or NDJSON create with validate_only=true: how many records passed every check',
      type: 'object',
      required: ['data', 'validated'],
      properties: {
        data: { type: 'array', maxItems: 0, items: {} },
        validated: { type: 'integer', minimum: 1, maximum: 1000 },
      },
    },
    Pagination: {
      description: 'Keys depend on the pagination style used (docs/api.md): cursor, keyset, page or offset.',
      type: 'object',
      required: ['limit', 'hasMore'],
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        hasMore: { type: 'boolean' },
        nextCursor: { type: ['string', 'null'] },
        nextAfter: { type: ['string', 'null'] },
        next: { type: ['string', 'null'], description: 'Path of the next page' },
        page: { type: 'integer', minimum: 1 },
        offset: { type: 'integer', minimum: 0 },
        total: { type: ['integer', 'null'] },
        totalPages: { type: ['integer', 'null'] },
      },
    },
  }
  schemas.SearchPage = {
    type: 'object',
    required: ['data', 'pagination'],
    properties: {
      data: {
        type: 'array',
        items: {
          type: 'object',
          description: 'A hit {collection, record} of a q search; a record of the collection otherwise',
        },
      },
      pagination: { $ref: '#/components/schemas/Pagination' },
      filters: { type: 'object' },
    },
  }
  schemas.VersionList = {
    type: 'object',
    required: ['data'],
    properties: {
      data: {
        type: 'array',
        items: {
          type: 'object',
          required: ['version', 'status', 'sunset', 'changes'],
          properties: {
            version: { type: 'string' },
            status: { type: 'string', enum: ['current', 'deprecated'] },
            path: { type: 'string' },
            releasedAt: { type: 'string', format: 'date-time' },
            deprecatedAt: { type: ['string', 'null'], format: 'date-time' },
            sunset: { type: ['string', 'null'], format: 'date-time' },
            openapi: { type: 'string' },
            changes: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  description: { type: 'string' },
                  resources: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    },
  }
  for (const resource of served.resources) {
    const n = names(resource)
    const record = plain(resource.schema)
    delete record.title
    schemas[n.record] = schemaFor(version, resource, record, 'record')
    const page = (items: Schema) => ({
      type: 'object',
      required: ['data', 'pagination'],
      properties: {
        data: { type: 'array', items },
        pagination: { $ref: '#/components/schemas/Pagination' },
        filters: { type: 'object', description: 'The applied filters, keyed by parameter name' },
      },
    })
    schemas[n.shaped] = shapedSchema(served, resource, schemas[n.record]!)
    const whole = { $ref: `#/components/schemas/${n.record}` }
    const shaped = { $ref: `#/components/schemas/${n.shaped}` }
    schemas[n.list] = page({ anyOf: [whole, shaped] })
    // A QUERY with a SQL column list answers only those columns (docs/query.md).
    const { required: _all, ...columns } = schemas[n.record]!
    schemas[n.columns] = {
      ...columns,
      description: `The columns of ${resource.name} a SQL select list names`,
    }
    schemas[n.queryPage] = page({
      anyOf: [whole, shaped, { $ref: `#/components/schemas/${n.columns}` }],
    })
    const bodies = queryBodySchemas(served, resource)
    schemas[n.queryForm] = bodies.form
    schemas[n.queryJson] = bodies.json
    if (!resource.writable) continue
    const create = {
      type: 'object',
      additionalProperties: false,
      properties: writableProperties(resource, 'create'),
      required: resource.writableFields.filter((f) => resource.fields[f]!.required),
    }
    schemas[n.create] = schemaFor(version, resource, create, 'write')
    const patch = {
      type: 'object',
      additionalProperties: false,
      properties: writableProperties(resource, 'patch'),
      minProperties: 0,
    }
    schemas[n.patch] = schemaFor(version, resource, patch, 'write')
  }
  return schemas
}
