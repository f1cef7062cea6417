import {
  GraphQLBoolean,
  type GraphQLFieldConfigMap,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLResolveInfo,
  GraphQLString,
  type GraphQLUnionType,
  Kind,
  type SelectionSetNode,
} from 'graphql'
import type { Entity } from '../resources/reads.ts'
import type { RecordPage } from '../resources/related.ts'

/**
 * Connections (the contract's `nodes`, `edges { cursor node }`, `pageInfo { hasNextPage endCursor }`,
 * `totalCount`). Cursors are the engine's signed cursors: `endCursor` is what REST calls
 * `nextCursor` (the cursor of the last record), so `after: endCursor` gives the next page.
 */
export interface ConnectionSource {
  page: RecordPage
}

interface PageInfoSource {
  hasNextPage: boolean
  endCursor: string | null
}

const PageInfo = new GraphQLObjectType<PageInfoSource>({
  name: 'PageInfo',
  description: 'Where a page ends and whether more follow.',
  fields: {
    hasNextPage: { type: new GraphQLNonNull(GraphQLBoolean) },
    endCursor: {
      type: GraphQLString,
      description:
        'The cursor of the last record of the page (null when the page is empty); pass it as `after`.',
    },
  },
})

/** `OrderConnection` and `OrderEdge` for the node type `Order` (or a union of record types). */
export function connectionType(
  node: GraphQLObjectType | GraphQLUnionType,
): GraphQLObjectType<ConnectionSource> {
  const edge = new GraphQLObjectType<{ node: Entity; cursor: string }>({
    name: `${node.name}Edge`,
    fields: {
      cursor: {
        type: new GraphQLNonNull(GraphQLString),
        description: 'Pass as `after` to continue after this record.',
      },
      node: { type: new GraphQLNonNull(node) },
    },
  })
  const fields: GraphQLFieldConfigMap<ConnectionSource, unknown> = {
    nodes: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(node))),
      resolve: ({ page }) => page.data,
    },
    edges: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(edge))),
      resolve: ({ page }) => page.data.map((entity) => ({ node: entity, cursor: page.cursorOf(entity) })),
    },
    pageInfo: {
      type: new GraphQLNonNull(PageInfo),
      resolve: ({ page }): PageInfoSource => {
        const last = page.data.at(-1)
        return { hasNextPage: page.hasMore, endCursor: last ? page.cursorOf(last) : null }
      },
    },
    totalCount: {
      type: new GraphQLNonNull(GraphQLInt),
      description: 'How many records match, over all pages. Counted only when selected.',
      resolve: ({ page }) => page.total ?? 0,
    },
  }
  return new GraphQLObjectType<ConnectionSource>({
    name: `${node.name}Connection`,
    description: `A page of ${node.name} records.`,
    fields,
  })
}

/** Whether the field being resolved selects `name` directly (through fragments too). */
export function selects(info: GraphQLResolveInfo, name: string): boolean {
  const visited = new Set<string>()
  const search = (set: SelectionSetNode | undefined): boolean =>
    set?.selections.some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value === name
      if (selection.kind === Kind.INLINE_FRAGMENT) return search(selection.selectionSet)
      const fragmentName = selection.name.value
      if (visited.has(fragmentName)) return false
      visited.add(fragmentName)
      return search(info.fragments[fragmentName]?.selectionSet)
    }) ?? false
  return info.fieldNodes.some((node) => search(node.selectionSet))
}
