import {
  type GraphQLFieldConfigMap,
  GraphQLID,
  type GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
} from 'graphql'
import { notFound } from '../../shared/errors.ts'
import { MAX_LIMIT } from '../../shared/query/types.ts'
import type { Entity } from '../resources/reads.ts'
import type { GraphQLContext } from './context.ts'
import { badUserInput, guard } from './errors.ts'
import { illustrating } from './names.ts'
import type { TypeKit } from './types.ts'

/**
 * `node(id:)` and `nodes(ids:)`: any record by its id (Relay's global object identification). The
 * id's prefix names the collection, and the record is read as that collection's singular field
 * reads it: the same scope, the same organization check, the same errors.
 */

type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>

/** The record an id names, or the error its singular field would give. */
function loadNode(kit: TypeKit, ctx: GraphQLContext, id: string): Promise<Entity> {
  const resource = kit.resourceOf(id)
  // An id of no collection is a record that does not exist, as `order(id: "usr_...")` answers.
  if (!resource) return Promise.reject(notFound(`No record with id ${id.slice(0, 100)}.`))
  // Its records change without an event, which the response cache's stamp would not see.
  if (!resource.cacheable) ctx.answer.keepable = false
  return ctx.loaders.node(resource).load(id)
}

export function nodeFields(kit: TypeKit): Fields {
  const node: GraphQLInterfaceType = kit.node
  const some = illustrating(kit.resources)
  return {
    node: {
      type: node,
      description: `Any record by id, as its own field would read it (\`node(id: "${some.prefix}_...")\` is \`${some.singular}(id:)\`): null with NOT_FOUND for an id of no record, FORBIDDEN for another organization's record or without the collection's read scope.`,
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: guard((_: unknown, args: { id: string }, ctx: GraphQLContext) => {
        ctx.principal()
        return loadNode(kit, ctx, args.id)
      }),
    },
    nodes: {
      type: new GraphQLList(node),
      description: `Records by id, in the order asked (at most ${MAX_LIMIT} ids), each as \`node(id:)\` reads it: an id that fails is null with its error, the others are still answered. Ids of one collection are read together.`,
      args: { ids: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLID))) } },
      resolve: guard((_: unknown, args: { ids: string[] }, ctx: GraphQLContext) => {
        ctx.principal()
        if (args.ids.length > MAX_LIMIT) {
          throw badUserInput(`At most ${MAX_LIMIT} ids can be asked for at once.`, [
            { field: 'ids', message: `has ${args.ids.length} ids; the most is ${MAX_LIMIT}` },
          ])
        }
        // Each item settles on its own: one failing id nulls only its own place in the list.
        return args.ids.map((id) => guard(() => loadNode(kit, ctx, id))())
      }),
    },
  }
}
