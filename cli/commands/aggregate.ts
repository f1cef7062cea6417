import { camelCase, snakeName } from '../../shared/query/fields.ts'
import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { RecordStream } from '../output.ts'
import { endListing, noticeMoreRecords, readPage, streamPages } from '../paging.ts'
import { parseTarget } from '../resources.ts'
import { filterQuery, positiveInteger } from './list.ts'
import { exportCsv } from './list-csv.ts'

/** Options of `api aggregate` itself; everything else must be one of the collection's filters. */
const AGGREGATE_OPTIONS = [
  'group-by',
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'all',
  'max-items',
  'limit',
  'sort',
  'q',
  'search',
  'include-total',
  'format',
  'timeout',
  'api-version',
  'profile',
  'verbose',
] as const

const FUNCTIONS = ['sum', 'avg', 'min', 'max'] as const

/** A flag given once, several times, or as a comma list: its items (`--sum a --sum b`, `--sum a,b`). */
function itemsOf(name: string, value: unknown): string[] {
  if (value === undefined) return []
  const items = (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(','))
  if (items.some((item) => item.trim() === '' || item === 'true'))
    throw new UsageError(`--${name} takes field names, such as --${name} amount`)
  return items.map((item) => snakeName(item.trim()))
}

/**
 * A group as a table row: its keys, then `count`, `sum(amount)`, ... as columns, so the header
 * reads `STATUS  COUNT  SUM(AMOUNT)`.
 */
function rowOf(item: unknown): Record<string, unknown> {
  const row: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
    if ((FUNCTIONS as readonly string[]).includes(key) && value && typeof value === 'object')
      for (const [field, v] of Object.entries(value)) row[`${key}(${snakeName(field)})`] = v
    else row[key] = value
  }
  return row
}

/**
 * `api aggregate COLLECTION --group-by status --count --sum amount [filters]`: counts and sums
 * per group (`GET /{collection}/aggregates`, docs/bulk.md), a table on a terminal, the groups as
 * JSON when piped; `--all` follows every page of groups.
 */
export async function aggregate(ctx: Context, spec: string, options: Record<string, unknown>): Promise<void> {
  const target = parseTarget(ctx.schema, ctx.prefix, spec)
  if (target.id) throw new UsageError('api aggregate takes a collection, not a record')
  const params = filterQuery(target.resource, options, AGGREGATE_OPTIONS)
  const groupBy = itemsOf('group-by', options.groupBy)
  // Timestamps keep their bucket as typed: created_at:day.
  if (groupBy.length > 0) params.set('group_by', groupBy.join(','))
  const aggregates = [
    ...(options.count ? ['count'] : []),
    ...FUNCTIONS.flatMap((fn) => itemsOf(fn, options[fn]).map((field) => `${fn}(${field})`)),
  ]
  if (aggregates.length > 0) params.set('aggregate', aggregates.join(','))
  for (const name of ['sort', 'q', 'search'] as const)
    if (options[name] !== undefined) params.set(name, String(options[name]))
  if (options.includeTotal) params.set('include_total', 'true')
  params.set(
    'limit',
    String(
      options.limit === undefined ? (options.all ? 100 : 20) : positiveInteger('limit', options.limit, 100),
    ),
  )
  if (ctx.csv) return await exportCsv(ctx, `${target.path}/aggregates?${params}`, options, 'groups')
  const maxItems =
    options.maxItems === undefined ? Number.POSITIVE_INFINITY : positiveInteger('max-items', options.maxItems)
  // The keys as the server names them (camelCase, a bucket's field alone), then the aggregates.
  const columns = [
    ...groupBy.map((key) => camelCase(key.split(':')[0]!)),
    ...(aggregates.length > 0 ? aggregates : ['count']),
  ]
  const stream = new RecordStream(ctx.io, ctx.format, columns, rowOf)
  const first = readPage(await ctx.api().json('GET', `${target.path}/aggregates?${params}`))
  const all = Boolean(options.all)
  const { more, total } = await streamPages(ctx, first, stream, { all, maxItems })
  endListing(ctx, stream, total, 'groups')
  noticeMoreRecords(
    ctx,
    { more, written: stream.written },
    { all, maxItems, sizeChosen: options.limit !== undefined },
  )
}
