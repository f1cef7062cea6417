import {
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  GraphQLID,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  printSchema,
} from 'graphql'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { prepareDelete } from '../resources/deletes.ts'
import { runWrite } from '../resources/prepared-write.ts'
import type { Entity } from '../resources/reads.ts'
import { getRecord } from '../resources/reads.ts'
import { listPage } from '../resources/related.ts'
import { createRecord, prepareUpdate } from '../resources/writes.ts'
import { actionMutations } from './actions.ts'
import { aggregateFields } from './aggregates.ts'
import { selects } from './connections.ts'
import type { GraphQLContext } from './context.ts'
import { guard } from './errors.ts'
import { listArgs, toListQuery, withArgumentNames } from './list-args.ts'
import { illustrating, pluralField, typeName } from './names.ts'
import { nodeFields } from './node.ts'
import { searchFields } from './search.ts'
import { createTypeKit, type TypeKit } from './types.ts'

/**
 * The whole GraphQL schema, generated from the resource declarations: no resource has GraphQL code
 * of its own, so declaring a resource adds its types, queries and mutations here.
 */

type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>
type Args = Record<string, unknown>

function queryFields(kit: TypeKit, resource: Resource, fields: Fields): void {
  fields[resource.singular] = {
    type: kit.object(resource),
    description: `One ${resource.singular} by id.`,
    args: { id: { type: new GraphQLNonNull(GraphQLID) } },
    resolve: guard((_: unknown, args: Args, ctx: GraphQLContext) =>
      getRecord(ctx.engine, ctx.principal(), resource, String(args.id)),
    ),
  }
  fields[pluralField(resource)] = {
    type: new GraphQLNonNull(kit.connection(resource)),
    description: `A page of ${resource.name} (scope ${resource.scopes.read}).`,
    args: listArgs(kit, resource),
    resolve: guard(async (_: unknown, args: Args, ctx: GraphQLContext, info) => {
      const query = toListQuery(ctx.engine.schema, resource, args, selects(info, 'totalCount'))
      return {
        page: await withArgumentNames(resource, false, () =>
          listPage(ctx.engine, ctx.principal(), resource, query),
        ),
      }
    }),
  }
}

function mutationFields(kit: TypeKit, resource: Resource, fields: Fields): void {
  const name = typeName(resource)
  const node = new GraphQLNonNull(kit.object(resource))
  const id = { type: new GraphQLNonNull(GraphQLID) }
  const parent = resource.parent
  const createArgs: GraphQLFieldConfigArgumentMap = {}
  if (parent) createArgs[parent.field] = id
  fields[`create${name}`] = {
    type: node,
    description: parent
      ? `Creates one ${resource.singular} under the record ${parent.field} names (as POST /api/v1/${parent.collection}/{id}/${resource.name}).`
      : `Creates one ${resource.singular} (as POST /api/v1/${resource.name}).`,
    args: { ...createArgs, input: { type: new GraphQLNonNull(kit.input(resource, 'create')) } },
    resolve: guard((_: unknown, args: Args, ctx: GraphQLContext) =>
      createRecord(
        ctx.engine,
        ctx.principal(),
        resource,
        { ...(args.input as object) },
        parent ? { collection: parent.collection, id: String(args[parent.field]) } : undefined,
      ),
    ),
  }
  for (const mode of ['update', 'replace'] as const) {
    fields[`${mode}${name}`] = {
      type: node,
      description:
        mode === 'update'
          ? `Changes the given fields of one ${resource.singular} (as PATCH).`
          : `Replaces one ${resource.singular} (as PUT): fields left out are reset to their default or null.`,
      args: { id, input: { type: new GraphQLNonNull(kit.input(resource, mode)) } },
      resolve: guard((_: unknown, args: Args, ctx: GraphQLContext) =>
        runWrite(
          ctx.engine,
          prepareUpdate(
            ctx.engine,
            ctx.principal(),
            resource,
            String(args.id),
            { ...(args.input as object) },
            mode === 'update' ? 'patch' : 'replace',
          ),
        ),
      ),
    }
  }
  fields[`delete${name}`] = {
    type: new GraphQLNonNull(GraphQLID),
    description: `Deletes one ${resource.singular} and its nested records (as DELETE); returns its id.`,
    args: { id },
    resolve: guard(async (_: unknown, args: Args, ctx: GraphQLContext) => {
      await runWrite(ctx.engine, prepareDelete(ctx.principal(), resource, String(args.id)))
      return String(args.id)
    }),
  }
}

function subscriptionFields(kit: TypeKit, events: Resource): Fields {
  const some = illustrating(kit.resources)
  return {
    events: {
      type: new GraphQLNonNull(kit.object(events)),
      description: `The organization's event log as it grows, in append order (needs read:events), showing only events of collections the token may also read (${some.scopes.read} for ${some.eventName} events). With \`after\` (an event id) it first replays every later event, so a client that reconnects with its last id misses none and sees none twice. Ends when the token expires.`,
      args: {
        types: {
          type: new GraphQLList(new GraphQLNonNull(GraphQLString)),
          description: `Only events of these types (\`${some.eventName}.created\`); all when left out.`,
        },
        after: { type: GraphQLID, description: 'Start after this event; without it, only events to come.' },
      },
      subscribe: guard((_: unknown, args: Args, ctx: GraphQLContext) =>
        ctx.feed.open(ctx.principal(), {
          types: args.types as string[] | null | undefined,
          after: args.after as string | null | undefined,
        }),
      ),
      resolve: (event: unknown) => event as Entity,
    },
  }
}

/** Builds the GraphQL schema of a set of declarations. */
export function buildSchema(resources: readonly Resource[]): GraphQLSchema {
  const kit = createTypeKit(resources)
  const query: Fields = {}
  const mutation: Fields = {}
  for (const resource of resources) {
    queryFields(kit, resource, query)
    Object.assign(query, aggregateFields(kit, resource))
    if (resource.writable) mutationFields(kit, resource, mutation)
    actionMutations(kit, resource, mutation)
  }
  for (const [name, field] of Object.entries({ ...nodeFields(kit), ...searchFields(kit) })) {
    if (name in query) throw new Error(`the query field ${name} clashes with a collection's`)
    query[name] = field
  }
  const events = resources.find((r) => r.name === 'events')
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: query }),
    mutation:
      Object.keys(mutation).length > 0
        ? new GraphQLObjectType({ name: 'Mutation', fields: mutation })
        : undefined,
    subscription: events
      ? new GraphQLObjectType({ name: 'Subscription', fields: subscriptionFields(kit, events) })
      : undefined,
  })
}

const built = new WeakMap<Schema, GraphQLSchema>()

/** The GraphQL schema of the resources served, built once per schema. */
export function serviceSchema(schema: Schema): GraphQLSchema {
  let graphql = built.get(schema)
  if (!graphql) {
    graphql = buildSchema(schema.resources)
    built.set(schema, graphql)
  }
  return graphql
}

/** The schema as SDL, in declaration order (what docs/graphql.md shows). */
export function printServiceSchema(schema: Schema): string {
  return printSchema(serviceSchema(schema))
}
