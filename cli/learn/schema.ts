import type { Learned } from '../../shared/learn/from-openapi.ts'
import type { Action } from '../../shared/resources/index.ts'
import { SERVICE_RESOURCES, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import { createSchema, type Schema } from '../../shared/schema/schema.ts'

/** The collections every server serves (users, events, webhook endpoints, deliveries). */
export const SERVICE_COLLECTIONS: readonly string[] = SERVICE_RESOURCES.map((r) => r.name)

/**
 * The Schema of what the CLI learned: the declared collections built as the server builds them
 * (shared/schema/declaration.ts), the service's own added, and each declared collection's actions
 * as the document names them (the CLI needs their names and summaries, not their states).
 */
export function schemaOfLearned(learned: Learned): Schema {
  const built = schemaFromDeclaration({ resources: learned.resources })
  return createSchema(
    built.resources.map((resource) => {
      const actions = learned.actions[resource.name]
      if (resource.service || !actions) return resource
      return {
        ...resource,
        actions: actions.map(
          (a): Action => ({ name: a.name, summary: a.summary, effect: a.summary, past: a.name }),
        ),
      }
    }),
  )
}
