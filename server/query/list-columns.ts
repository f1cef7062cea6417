import type { Shape } from '../../shared/query/shape.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Presentation } from '../resources/presentation.ts'

/** The members of each field the presentation shows as an object (v2's `amount`: value, currency). */
const objectMembers = new WeakMap<Presentation, WeakMap<Resource, Map<string, string[]>>>()

/**
 * Which fields of `resource` are objects in the presentation, found from the declaration alone: a
 * declared object (an event's `actor`) has its members, and a record whose every field holds a
 * scalar is shown once to see which fields the version turns into objects.
 */
function membersOf(presentation: Presentation, resource: Resource): Map<string, string[]> {
  let byResource = objectMembers.get(presentation)
  if (!byResource) {
    byResource = new WeakMap()
    objectMembers.set(presentation, byResource)
  }
  let members = byResource.get(resource)
  if (!members) {
    members = new Map(Object.entries(resource.objects).map(([name, of]) => [name, Object.keys(of)]))
    const sample: Record<string, unknown> = { id: 0, createdAt: 0, updatedAt: 0 }
    for (const name of Object.keys(resource.fields)) sample[name] = 0
    const [shown] = presentation.records(resource, [sample])
    for (const [name, value] of Object.entries(shown ?? {}))
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        members.set(name, Object.keys(value))
    byResource.set(resource, members)
  }
  return members
}

const wholeRecord = new WeakMap<Presentation, WeakMap<Resource, string[]>>()

/**
 * The CSV columns of records of `resource` as `shape` shows them, from the declaration (never from
 * the data, so an empty page has its header and every page of an export the same columns): the
 * presented fields in the record's order, an object field as its members (`amount.value`,
 * `amount.currency`), then each expansion: an expanded reference's columns under its name
 * (`user.name`), an expanded nested collection as one column (its first page, as JSON).
 */
export function listColumns(presentation: Presentation, resource: Resource, shape?: Shape): string[] {
  if (!shape || (shape.fields === null && shape.expand.length === 0)) {
    let known = wholeRecord.get(presentation)
    if (!known) {
      known = new WeakMap()
      wholeRecord.set(presentation, known)
    }
    let columns = known.get(resource)
    if (!columns) {
      columns = ownColumns(presentation, resource, null)
      known.set(resource, columns)
    }
    return columns
  }
  const columns = ownColumns(presentation, resource, shape.fields)
  for (const { relation, shape: inner } of shape.expand) {
    if (relation.kind === 'children') columns.push(relation.name)
    else
      for (const column of listColumns(presentation, relation.target, inner))
        columns.push(`${relation.name}.${column}`)
  }
  return columns
}

function ownColumns(
  presentation: Presentation,
  resource: Resource,
  fields: readonly string[] | null,
): string[] {
  const names = presentation.fieldNames(resource)
  return fieldColumns(
    presentation,
    resource,
    fields === null ? names : names.filter((n) => fields.includes(n)),
  )
}

/**
 * The columns of the fields `names` in their order (a SQL body's column list), an object field
 * as its members.
 */
export function fieldColumns(
  presentation: Presentation,
  resource: Resource,
  names: readonly string[],
): string[] {
  const members = membersOf(presentation, resource)
  const columns: string[] = []
  for (const name of names) {
    const of = members.get(name)
    if (of) for (const member of of) columns.push(`${name}.${member}`)
    else columns.push(name)
  }
  return columns
}
