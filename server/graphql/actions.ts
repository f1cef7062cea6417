import { type GraphQLFieldConfigMap, GraphQLID, GraphQLNonNull } from 'graphql'
import type { Action, Resource } from '../../shared/resources/index.ts'
import { pascal } from '../../shared/words.ts'
import { prepareAction } from '../resources/actions.ts'
import { runWrite } from '../resources/prepared-write.ts'
import type { GraphQLContext } from './context.ts'
import { guard } from './errors.ts'
import { typeName } from './names.ts'
import type { TypeKit } from './types.ts'

/** `cancelOrder`, `rotateSecretWebhookEndpoint`: the action in camelCase, then the type. */
function actionField(resource: Resource, action: Action): string {
  const [first, ...rest] = action.name.split('-')
  return `${first}${rest.map(pascal).join('')}${typeName(resource)}`
}

/**
 * A mutation per declared action (contract: `cancelOrder(id: ID!)`), returning the changed record.
 * A state the action does not start from is `BAD_USER_INPUT` with reason `CONFLICT` and a detail
 * naming the current state, as REST's 409.
 */
export function actionMutations(
  kit: TypeKit,
  resource: Resource,
  fields: GraphQLFieldConfigMap<unknown, GraphQLContext>,
): void {
  for (const action of resource.actions) {
    const name = actionField(resource, action)
    const effect =
      action.field === undefined
        ? (action.effect ?? '')
        : `${action.field} from ${(action.from ?? []).map(String).join(' or ')} to ${String(action.to)}`
    if (name in fields) throw new Error(`${resource.name} action ${action.name}: the mutation ${name} exists`)
    fields[name] = {
      type: new GraphQLNonNull(kit.object(resource)),
      description: `${action.summary}: ${effect} (as POST /api/v2/${resource.name}/{id}/${action.name}); records the event ${resource.eventName}.${action.past}.`,
      args: { id: { type: new GraphQLNonNull(GraphQLID) } },
      resolve: guard((_: unknown, args: Record<string, unknown>, ctx: GraphQLContext) =>
        runWrite(ctx.engine, prepareAction(ctx.principal(), resource, action, String(args.id))),
      ),
    }
  }
}
