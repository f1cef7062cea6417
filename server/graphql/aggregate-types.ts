import {
  GraphQLEnumType,
  type GraphQLFieldConfigMap,
  GraphQLFloat,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLString,
} from 'graphql'
import { groupableKeys, orderedFields, summableFields } from '../../shared/query/aggregate-params.ts'
import type { GroupKey, TimeBucket } from '../../shared/query/aggregate-types.ts'
import { camelCase } from '../../shared/query/fields.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { typeName } from './names.ts'
import { DateTime, SafeInt } from './scalars.ts'
import type { TypeKit } from './types.ts'

/**
 * The types of `{plural}Aggregate` for one collection (docs/bulk.md): `BookGroupBy`, the enum of
 * what groups (`status`, a timestamp as `createdAt_day`, `createdAt_week`, `createdAt_month`), and
 * `BookAggregate`, one group: `key` (`BookAggregateKey`, the grouped fields in their own types,
 * a bucketed timestamp as the instant its bucket starts), `count`, `sum` and `avg` (the integer
 * fields), `min` and `max` (the sortable fields), and `cursor`.
 */

/** A group as the resolver hands it to its fields. */
export interface GroupSource {
  key: Record<string, unknown>
  count: number | null
  sum: Record<string, unknown>
  avg: Record<string, unknown>
  min: Record<string, unknown>
  max: Record<string, unknown>
  cursor: string | null
}

interface AggregateTypes {
  groupBy: GraphQLEnumType
  group: GraphQLObjectType<GroupSource>
  /** Integer fields (`sum` and `avg` take them); empty when the collection has none. */
  integers: string[]
}

const isTimestamp = (resource: Resource, field: string) =>
  field === 'createdAt' || field === 'updatedAt' || resource.fields[field]?.kind === 'timestamp'

/** The keys REST's `group_by` takes (`status`, `created_at:day`), as GroupKeys. */
function groupKeys(resource: Resource): GroupKey[] {
  return groupableKeys(resource).map((key) => {
    const [name, bucket] = key.split(':')
    const field = camelCase(name!)
    return bucket ? { field, bucket: bucket as TimeBucket } : { field }
  })
}

/** The groupBy enum's value name for a key: `status`, `createdAt_day`. */
export const groupByName = (key: GroupKey) => (key.bucket ? `${key.field}_${key.bucket}` : key.field)

function object(
  name: string,
  description: string,
  fields: string[],
  type: (field: string) => GraphQLOutputType,
): GraphQLObjectType {
  const config: GraphQLFieldConfigMap<Record<string, unknown>, unknown> = {}
  for (const field of fields) config[field] = { type: type(field) }
  return new GraphQLObjectType({ name, description, fields: config })
}

/** Builds the aggregate types of one collection. */
export function aggregateTypes(kit: TypeKit, resource: Resource): AggregateTypes {
  const base = typeName(resource)
  const keys = groupKeys(resource)
  const groupable = [...new Set(keys.map((k) => k.field))]
  const values: Record<string, { value: GroupKey; description?: string }> = {}
  for (const key of keys)
    values[groupByName(key)] = {
      value: key,
      ...(key.bucket
        ? {
            description: `${key.field} by its UTC ${key.bucket}${key.bucket === 'week' ? ' (ISO, from Monday)' : ''}.`,
          }
        : {}),
    }
  const groupBy = new GraphQLEnumType({
    name: `${base}GroupBy`,
    description: `What ${resource.name} are grouped by: a field declared with a filter or sort, a timestamp by day, week or month (UTC).`,
    values,
  })
  const integers = summableFields(resource)
  const leaf = (field: string) => (isTimestamp(resource, field) ? DateTime : kit.scalar(resource, field))
  const key = object(
    `${base}AggregateKey`,
    `The fields a group of ${resource.name} shares (null when not grouped by); a timestamp grouped by day, week or month is the instant its bucket starts.`,
    groupable,
    leaf,
  )
  const fields: GraphQLFieldConfigMap<GroupSource, unknown> = {
    key: { type: new GraphQLNonNull(key) },
    count: { type: new GraphQLNonNull(GraphQLInt), description: 'How many records the group holds.' },
  }
  if (integers.length > 0) {
    fields.sum = {
      type: new GraphQLNonNull(
        object(
          `${base}AggregateSum`,
          'Sums of the integer fields over the group (0 when every value is null).',
          integers,
          () => SafeInt,
        ),
      ),
    }
    fields.avg = {
      type: new GraphQLNonNull(
        object(
          `${base}AggregateAvg`,
          'Means of the integer fields over the group (null when every value is null).',
          integers,
          () => GraphQLFloat,
        ),
      ),
    }
  }
  const bounds = object(
    `${base}AggregateBounds`,
    'The least or greatest value of each sortable field over the group (null when every value is null).',
    orderedFields(resource),
    leaf,
  )
  fields.min = { type: new GraphQLNonNull(bounds) }
  fields.max = { type: new GraphQLNonNull(bounds) }
  fields.cursor = {
    type: GraphQLString,
    description:
      'On the last group of a page when more groups follow: pass it as `after` for the next page. Null otherwise.',
  }
  const group = new GraphQLObjectType<GroupSource>({
    name: `${base}Aggregate`,
    description: `One group of ${resource.name}: the key it shares and the aggregates over it.`,
    fields,
  })
  return { groupBy, group, integers }
}
