import {
  type GraphQLFieldConfigMap,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLString,
  GraphQLUnionType,
} from 'graphql'
import { parseSearchParams } from '../../shared/query/search-params.ts'
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../shared/query/types.ts'
import type { Entity } from '../resources/reads.ts'
import { searchPage } from '../resources/related.ts'
import { type ConnectionSource, connectionType, selects } from './connections.ts'
import type { GraphQLContext } from './context.ts'
import { guard } from './errors.ts'
import { withArgumentNames } from './list-args.ts'
import { typeName } from './names.ts'
import type { TypeKit } from './types.ts'

/**
 * `search(q:, first:, after:)`: the full-text search of /api/v1/search (`q` over every searchable
 * collection the token may read, newest first) as a connection of `union SearchResult`. The
 * arguments become /search's parameters and go through its parser and engine, so both accept,
 * reject and order alike, and their cursors are interchangeable.
 */

type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>

interface SearchArgs {
  q: string
  first?: number | null
  after?: string | null
}

/** The `search` field, or none when no declared collection has searchable fields. */
export function searchFields(kit: TypeKit): Fields {
  const searchable = kit.resources.filter((r) => r.searchable.length > 0)
  if (searchable.length === 0) return {}
  const union = new GraphQLUnionType({
    name: 'SearchResult',
    description: `A record found by \`search\`: one of the searchable collections (${searchable.map((r) => r.name).join(', ')}).`,
    types: () => searchable.map((r) => kit.object(r)),
    resolveType: (entity: Entity) => {
      const resource = kit.resourceOf(String(entity.id))
      return resource ? typeName(resource) : undefined
    },
  })
  return {
    search: {
      type: new GraphQLNonNull(connectionType(union)),
      description:
        'Full-text search over every searchable collection the token may read (as GET /api/v1/search?q=), newest first. BAD_USER_INPUT when it may read none of them.',
      args: {
        q: {
          type: new GraphQLNonNull(GraphQLString),
          description: 'The words to find (a prefix matches the last one).',
        },
        first: {
          type: GraphQLInt,
          defaultValue: DEFAULT_LIMIT,
          description: `Page size, 1 to ${MAX_LIMIT}.`,
        },
        after: {
          type: GraphQLString,
          description: 'Continue after this cursor (`pageInfo.endCursor` or an edge `cursor`).',
        },
      },
      resolve: guard(
        async (_: unknown, args: SearchArgs, ctx: GraphQLContext, info): Promise<ConnectionSource> => {
          const principal = ctx.principal()
          const params = new URLSearchParams({ q: args.q })
          if (args.first != null) params.set('limit', String(args.first))
          if (args.after != null) params.set('cursor', args.after)
          if (selects(info, 'totalCount')) params.set('include_total', 'true')
          const page = await withArgumentNames(undefined, false, () => {
            return searchPage(ctx.engine, principal, parseSearchParams(ctx.engine.schema, params).query)
          })
          return { page }
        },
      ),
    },
  }
}
