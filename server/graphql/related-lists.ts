import type { Resource } from '../../shared/resources/index.ts'
import { pascal } from '../../shared/words.ts'
import { pluralField, relationField } from './names.ts'

/**
 * A list of records related to one record: `child` records whose field `via.parent.field` holds its
 * id. `via` is `child` seen as nested under the record's collection by that field, so the nested
 * collections' machinery (arguments, batched first pages, cursors) serves references too.
 */
interface RelatedList {
  child: Resource
  via: Resource
  /** The field on the record's type: `lineItems`, `books`, or `postsAsAuthor` when one name is not enough. */
  name: string
}

/**
 * The lists a record of `resource` shows (contract, "GraphQL shape": relations both ways): its
 * nested collections (`order.lineItems`) and, for each reference to it that is not a parent, the
 * records holding it (`author.books`, `user.orders`). A collection that references it by several
 * fields gets one list per field, named after the relation (`postsAsAuthor`).
 */
export function relatedLists(resources: readonly Resource[], resource: Resource): RelatedList[] {
  const lists: RelatedList[] = []
  for (const child of resources) {
    const nested = child.parent?.collection === resource.name ? child.parent.field : undefined
    if (nested) lists.push({ child, via: child, name: pluralField(child) })
    const references = Object.entries(child.fields)
      .filter(([field, f]) => f.references === resource.name && field !== nested)
      .map(([field]) => field)
    for (const field of references) {
      const name =
        references.length === 1 && !nested
          ? pluralField(child)
          : `${pluralField(child)}As${pascal(relationField(child, field))}`
      lists.push({ child, via: { ...child, parent: { collection: resource.name, field } }, name })
    }
  }
  return lists
}
