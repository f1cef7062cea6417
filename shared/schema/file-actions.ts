/**
 * The checks of a collection's actions in a schema file: those shared/resources/define.ts makes
 * when it defines a resource (`checkedAction`), as problem lines instead of a throw, and the path an
 * action shares with a nested collection.
 */
import { ACTION_NAME, CHANGES } from '../resources/define.ts'
import type { ResourceDeclaration } from './declaration.ts'
import { place } from './file-place.ts'

/** Every problem of a collection's actions; `children` are its nested collections. */
export function actionProblems(
  collection: string,
  resource: ResourceDeclaration,
  children: readonly string[],
): string[] {
  const problems: string[] = []
  const pasts = new Map<string, string>()
  for (const [name, action] of Object.entries(resource.actions ?? {})) {
    if (name === '$comment') continue
    const at = (...keys: (string | number)[]) => place('resources', collection, 'actions', name, ...keys)
    if (!ACTION_NAME.test(name)) {
      problems.push(`${at()}: an action's name is lowercase words joined by - (lend, mark-lost)`)
      continue
    }
    if (children.includes(name))
      problems.push(`${at()}: the nested collection ${name} has this path (/${collection}/{id}/${name})`)
    if (!/^[a-z_]+$/.test(action.past))
      problems.push(
        `${at('past')}: lowercase letters and _ only (it is the event type's end: ${resource.singular}.lent)`,
      )
    else if (CHANGES.includes(action.past))
      problems.push(
        `${at('past')}: ${resource.singular}.${action.past} is the event of every ${action.past.slice(0, -1)}`,
      )
    else if (pasts.has(action.past))
      problems.push(
        `${at('past')}: the action ${pasts.get(action.past)} has the past tense ${action.past} too`,
      )
    pasts.set(action.past, name)
    const field = resource.fields[action.field]
    if (!field) {
      problems.push(`${at('field')}: no field ${JSON.stringify(action.field)}`)
      continue
    }
    if (field.type !== 'enum' && field.type !== 'boolean') {
      problems.push(`${at('field')}: ${action.field} must be an enum or boolean field to hold a state`)
      continue
    }
    const states: readonly unknown[] = field.type === 'enum' ? (field.values ?? []) : [true, false]
    const notAState = (state: unknown, ...keys: (string | number)[]) => {
      if (!states.includes(state))
        problems.push(`${at(...keys)}: ${JSON.stringify(state)} is not a state of ${action.field}`)
    }
    for (const [i, state] of action.from.entries()) notAState(state, 'from', i)
    notAState(action.to, 'to')
    if (action.from.includes(action.to))
      problems.push(`${at('from')}: it must start only from states other than ${JSON.stringify(action.to)}`)
  }
  return problems
}
