import {
  type GraphQLFieldConfigMap,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLResolveInfo,
  GraphQLString,
  Kind,
  type SelectionSetNode,
} from 'graphql'
import { MAX_GROUP_KEYS, summableFields } from '../../shared/query/aggregate-params.ts'
import type {
  Aggregate,
  AggregateFunction,
  AggregateQuery,
  AggregateRow,
  GroupKey,
} from '../../shared/query/aggregate-types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { aggregateGroups } from '../resources/aggregates.ts'
import { checkGroupBy, parseAggregateSort } from './aggregate-args.ts'
import { aggregateTypes, type GroupSource } from './aggregate-types.ts'
import { selects } from './connections.ts'
import type { GraphQLContext } from './context.ts'
import { guard } from './errors.ts'
import { listArgs, toListQuery, withArgumentNames } from './list-args.ts'
import { pluralField } from './names.ts'
import type { TypeKit } from './types.ts'

/**
 * `{plural}Aggregate(filters..., groupBy:, sort:, first:, after:)`: the collection's aggregates
 * (GET /api/v2/{collection}/aggregates) as a list of groups `{ key count sum avg min max cursor }`.
 * What is computed follows the selection: `sum { pages }` asks for sum(pages), nothing else is
 * summed. The groups of a page are the list; the last carries `cursor` when more follow.
 */

type Fields = GraphQLFieldConfigMap<unknown, GraphQLContext>

const FUNCTIONS: readonly Exclude<AggregateFunction, 'count'>[] = ['sum', 'avg', 'min', 'max']

/** The fields selected under `name` in the groups' selection (through fragments too). */
function selectedUnder(info: GraphQLResolveInfo, name: string): string[] {
  const found = new Set<string>()
  const visited = new Set<string>()
  const walk = (set: SelectionSetNode | undefined, inside: boolean) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) {
        if (inside) {
          if (!selection.name.value.startsWith('__')) found.add(selection.name.value)
        } else if (selection.name.value === name) walk(selection.selectionSet, true)
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet, inside)
      else if (!visited.has(`${inside}:${selection.name.value}`)) {
        visited.add(`${inside}:${selection.name.value}`)
        walk(info.fragments[selection.name.value]?.selectionSet, inside)
      }
    }
  }
  for (const node of info.fieldNodes) walk(node.selectionSet, false)
  return [...found]
}

/** The aggregates the selection asks for, count first; count alone when it asks for none. */
function selectedAggregates(info: GraphQLResolveInfo): Aggregate[] {
  const aggregates: Aggregate[] = []
  if (selects(info, 'count')) aggregates.push({ fn: 'count' })
  for (const fn of FUNCTIONS) for (const field of selectedUnder(info, fn)) aggregates.push({ fn, field })
  return aggregates.length > 0 ? aggregates : [{ fn: 'count' }]
}

/** One group as its GraphQL fields read it. */
function groupSource(query: AggregateQuery, row: AggregateRow, cursor: string | null): GroupSource {
  const source: GroupSource = { key: row.key, count: null, sum: {}, avg: {}, min: {}, max: {}, cursor }
  query.aggregates.forEach((aggregate, i) => {
    const value = row.values[i] ?? null
    if (aggregate.fn === 'count') source.count = typeof value === 'number' ? value : Number(value)
    else source[aggregate.fn][aggregate.field!] = value
  })
  return source
}

/** A sort for the argument's description, in the collection's own fields (`-count,-sum(pages)`). */
function sortExample(resource: Resource): string {
  const summable = summableFields(resource)[0]
  return summable ? `-count,-sum(${summable})` : '-count'
}

/** The `{plural}Aggregate` query field of a collection. */
export function aggregateFields(kit: TypeKit, resource: Resource): Fields {
  const types = aggregateTypes(kit, resource)
  const { sort: _, ...args } = listArgs(kit, resource)
  return {
    [`${pluralField(resource)}Aggregate`]: {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(types.group))),
      description: `Counts, sums, means and bounds of ${resource.name} per group (scope ${resource.scopes.read}), as GET /api/v2/${resource.name}/aggregates; one group of every record without groupBy. A page of groups: the last carries \`cursor\` when more follow.`,
      args: {
        ...args,
        groupBy: {
          type: new GraphQLList(new GraphQLNonNull(types.groupBy)),
          description: `What to group by, at most ${MAX_GROUP_KEYS} keys, each field once.`,
        },
        sort: {
          type: GraphQLString,
          description: `Order of the groups: groupBy keys and aggregates, comma-separated, - for descending (\`${sortExample(resource)}\`). Ties, and the order without sort, follow the groupBy keys, ascending.`,
        },
        after: {
          type: GraphQLString,
          description: 'Continue after this cursor: the `cursor` of the last group of the page before.',
        },
      },
      resolve: guard(async (_source: unknown, raw: Record<string, unknown>, ctx: GraphQLContext, info) => {
        const { groupBy: groupArg, sort, ...listArgsOnly } = raw
        const list = toListQuery(ctx.engine.schema, resource, listArgsOnly, false)
        const groupBy = checkGroupBy((groupArg ?? []) as GroupKey[])
        // `after` reaches the list parser as REST's `cursor`, so the page is never keyset: this
        // narrows the type, and a group (which has no id to key on) never pages by one.
        const page =
          list.page.style === 'keyset' ? { style: 'cursor' as const, limit: list.page.limit } : list.page
        const query: AggregateQuery = {
          where: list.where,
          ...(list.search === undefined ? {} : { search: list.search }),
          groupBy,
          aggregates: selectedAggregates(info),
          sort: parseAggregateSort(resource, groupBy, sort as string | null | undefined),
          page,
          includeTotal: false,
        }
        const result = await withArgumentNames(resource, false, () =>
          aggregateGroups(ctx.engine, ctx.principal(), { resource, query }),
        )
        const last = result.groups.length - 1
        const next = result.pagination.hasMore ? (result.pagination.nextCursor ?? null) : null
        return result.groups.map((row, i) => groupSource(query, row, i === last ? next : null))
      }),
    },
  }
}
