import {
  GraphQLBoolean,
  GraphQLEnumType,
  type GraphQLFieldConfigMap,
  GraphQLID,
  type GraphQLInputFieldConfigMap,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLScalarType,
  GraphQLString,
} from 'graphql'
import type { Field, Resource } from '../../shared/resources/index.ts'
import { pascal } from '../../shared/words.ts'
import type { Entity } from '../resources/reads.ts'
import { listPage } from '../resources/related.ts'
import { type ConnectionSource, connectionType, selects } from './connections.ts'
import type { GraphQLContext } from './context.ts'
import { guard } from './errors.ts'
import { listArgs, toListQuery, withArgumentNames } from './list-args.ts'
import { enumTypeName, enumValueNames, relationField, typeName } from './names.ts'
import { relatedLists } from './related-lists.ts'
import { DateTime, JSONScalar, SafeInt } from './scalars.ts'

export type InputMode = 'create' | 'update' | 'replace'
export type LeafType = GraphQLScalarType | GraphQLEnumType

/** The GraphQL types of a set of resource declarations, each built once. */
export interface TypeKit {
  resources: readonly Resource[]
  /** The collection whose records carry this id's prefix (`ord_...` is an order); undefined for none. */
  resourceOf(id: string): Resource | undefined
  /** `interface Node { id: ID! }`, which every record type implements. */
  node: GraphQLInterfaceType
  /** The scalar or enum of a declared or system field (nullability not applied). */
  scalar(resource: Resource, field: string): LeafType
  object(resource: Resource): GraphQLObjectType<Entity, GraphQLContext>
  connection(resource: Resource): GraphQLObjectType<ConnectionSource, GraphQLContext>
  input(resource: Resource, mode: InputMode): GraphQLInputObjectType
}

const INT32_MAX = 2 ** 31 - 1

/** Int when every value the field allows fits 32 bits, SafeInt otherwise. */
function integerType(field: Field): GraphQLScalarType {
  const schema = field.schema as { minimum?: number; maximum?: number }
  const fits = (schema.minimum ?? -Infinity) >= -INT32_MAX - 1 && (schema.maximum ?? Infinity) <= INT32_MAX
  return fits ? GraphQLInt : SafeInt
}

export function createTypeKit(resources: readonly Resource[]): TypeKit {
  const byName = new Map(resources.map((r) => [r.name, r]))
  const byPrefix = new Map(resources.map((r) => [r.prefix, r]))
  const resourceOf = (id: string) => {
    // A TypeID's suffix never holds `_`: the prefix is everything before the last one.
    const cut = id.lastIndexOf('_')
    return cut > 0 ? byPrefix.get(id.slice(0, cut)) : undefined
  }
  const node = new GraphQLInterfaceType({
    name: 'Node',
    description:
      'A record of any collection. Its id names its type (the prefix before `_`), so `node(id:)` finds it (Relay global object identification).',
    fields: { id: { type: new GraphQLNonNull(GraphQLID) } },
    resolveType: (entity: Entity) => {
      const resource = resourceOf(String(entity.id))
      return resource ? typeName(resource) : undefined
    },
  })
  const enums = new Map<string, GraphQLEnumType>()
  const objects = new Map<string, GraphQLObjectType<Entity, GraphQLContext>>()
  const connections = new Map<string, GraphQLObjectType<ConnectionSource, GraphQLContext>>()
  const inputs = new Map<string, GraphQLInputObjectType>()
  const parts = new Map<string, GraphQLObjectType>()

  const lookup = (resource: Resource, name: string) => {
    const target = byName.get(name)
    if (!target) throw new Error(`${resource.name} refers to ${name}, which is not declared`)
    return target
  }

  const enumOf = (resource: Resource, name: string, field: Field): GraphQLEnumType => {
    const typeNameOf = enumTypeName(resource, name)
    let type = enums.get(typeNameOf)
    if (!type) {
      const values: Record<string, { value: string }> = {}
      for (const [value, graphqlName] of enumValueNames(field.values!)) values[graphqlName] = { value }
      type = new GraphQLEnumType({ name: typeNameOf, values })
      enums.set(typeNameOf, type)
    }
    return type
  }

  const scalar = (resource: Resource, name: string): LeafType => {
    if (name === 'id') return GraphQLID
    if (name === 'createdAt' || name === 'updatedAt') return DateTime
    const field = resource.fields[name]
    if (!field) throw new Error(`${resource.name}.${name} is not declared`)
    switch (field.kind) {
      case 'text':
        return GraphQLString
      case 'integer':
        return integerType(field)
      case 'boolean':
        return GraphQLBoolean
      case 'enum':
        return enumOf(resource, name, field)
      case 'reference':
        return GraphQLID
      case 'json':
        return JSONScalar
      case 'timestamp':
        return DateTime
    }
  }

  /** A declared object of a record (an event's `actor`): its members, each present when it is. */
  const objectOf = (resource: Resource, name: string, members: Record<string, string>): GraphQLObjectType => {
    const key = `${resource.name}.${name}`
    let type = parts.get(key)
    if (!type) {
      type = new GraphQLObjectType({
        name: `${typeName(resource)}${pascal(name)}`,
        description: `The ${name} of a ${resource.singular}.`,
        fields: Object.fromEntries(
          Object.entries(members).map(([memberKey, field]) => [
            memberKey,
            { type: new GraphQLNonNull(scalar(resource, field)) },
          ]),
        ),
      })
      parts.set(key, type)
    }
    return type
  }

  const objectFields = (resource: Resource): GraphQLFieldConfigMap<Entity, GraphQLContext> => {
    const fields: GraphQLFieldConfigMap<Entity, GraphQLContext> = {
      id: { type: new GraphQLNonNull(GraphQLID) },
    }
    for (const name of resource.presented) {
      const members = resource.objects[name]
      if (members) {
        const nullable = Object.values(members).some((f) => resource.fields[f]!.nullable)
        const type = objectOf(resource, name, members)
        fields[name] = { type: nullable ? type : new GraphQLNonNull(type) }
        continue
      }
      const type = scalar(resource, name)
      fields[name] = { type: resource.fields[name]!.nullable ? type : new GraphQLNonNull(type) }
    }
    fields.createdAt = { type: new GraphQLNonNull(DateTime) }
    fields.updatedAt = { type: new GraphQLNonNull(DateTime) }
    // Shown only by the answer of a create or an action (a signing secret), null in every read.
    for (const [name, description] of Object.entries(resource.revealed))
      fields[name] = { type: GraphQLString, description }
    // Relations: a reference field `xId` gives `x`, the record it points at (batched per request).
    for (const [name, field] of Object.entries(resource.fields)) {
      if (!field.references) continue
      const target = lookup(resource, field.references)
      const relation = relationField(resource, name)
      if (relation in fields) throw new Error(`${resource.name}: relation ${relation} clashes with a field`)
      fields[relation] = {
        type: kit.object(target),
        description: `The ${target.singular} that ${name} names (null with an error without ${target.scopes.read}).`,
        resolve: guard((entity: Entity, _args: unknown, ctx: GraphQLContext) => {
          const id = entity[name]
          return typeof id === 'string' ? ctx.loaders.record(target).load(id) : null
        }),
      }
    }
    // Nested collections (`order.lineItems`) and the records that reference this one
    // (`author.books`): first pages batched over all parents of the request.
    for (const { child, via, name } of relatedLists(resources, resource)) {
      if (name in fields) throw new Error(`${resource.name}: related list ${name} clashes with a field`)
      fields[name] = {
        type: new GraphQLNonNull(kit.connection(child)),
        description:
          child.parent?.collection === resource.name && child.parent.field === via.parent!.field
            ? `The ${child.name} of this ${resource.singular}.`
            : `The ${child.name} whose ${via.parent!.field} names this ${resource.singular}.`,
        args: listArgs(kit, via, true),
        resolve: guard(async (entity: Entity, args: Record<string, unknown>, ctx: GraphQLContext, info) => {
          const query = toListQuery(ctx.engine.schema, via, args, selects(info, 'totalCount'), true)
          const parentId = entity.id as string
          if (args.after != null) {
            const parent = { collection: resource.name, id: parentId }
            const page = await withArgumentNames(via, true, () =>
              listPage(ctx.engine, ctx.principal(), via, query, parent),
            )
            return { page }
          }
          return ctx.loaders
            .childPage(via, query)
            .load(parentId)
            .then((page) => ({ page }))
        }),
      }
    }
    return fields
  }

  const inputFields = (resource: Resource, mode: InputMode): GraphQLInputFieldConfigMap => {
    const fields: GraphQLInputFieldConfigMap = {}
    for (const name of resource.writableFields) {
      const field = resource.fields[name]!
      const type = scalar(resource, name)
      const required = mode !== 'update' && field.required
      const fallback =
        mode === 'update'
          ? 'unchanged'
          : mode === 'create' && field.defaultToCaller
            ? "the token's user (null for a client token)"
            : field.default === undefined
              ? 'required'
              : `${JSON.stringify(field.default)}`
      fields[name] = {
        type: required ? new GraphQLNonNull(type) : type,
        description: required ? undefined : `When omitted: ${fallback}.`,
      }
    }
    return fields
  }

  const kit: TypeKit = {
    resources,
    resourceOf,
    node,
    scalar,
    object(resource) {
      let type = objects.get(resource.name)
      if (!type) {
        type = new GraphQLObjectType<Entity, GraphQLContext>({
          name: typeName(resource),
          description: `A record of ${resource.name} (id prefix ${resource.prefix}_).`,
          interfaces: [node],
          fields: () => objectFields(resource),
        })
        objects.set(resource.name, type)
      }
      return type
    },
    connection(resource) {
      let type = connections.get(resource.name)
      if (!type) {
        type = connectionType(kit.object(resource)) as GraphQLObjectType<ConnectionSource, GraphQLContext>
        connections.set(resource.name, type)
      }
      return type
    },
    input(resource, mode) {
      const key = `${mode}:${resource.name}`
      let type = inputs.get(key)
      if (!type) {
        type = new GraphQLInputObjectType({
          name: `${pascal(mode)}${typeName(resource)}Input`,
          description:
            mode === 'update'
              ? 'The fields to change (PATCH); a field left out keeps its value.'
              : mode === 'replace'
                ? 'The whole record (PUT); a field left out is reset to its default or null.'
                : undefined,
          fields: () => inputFields(resource, mode),
        })
        inputs.set(key, type)
      }
      return type
    },
  }
  return kit
}
