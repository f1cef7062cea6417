import { relationsOf } from '../../shared/query/shape.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { type Columns, RecordStream } from '../output.ts'
import { endListing, noticeMoreRecords, readPage, streamPages } from '../paging.ts'
import { columnsOf, filterFlags, parseTarget, suggest, type Target } from '../resources.ts'

/** Options of `api list` itself; everything else must be one of the collection's filters. */
const LIST_OPTIONS = [
  'all',
  'max-items',
  'limit',
  'sort',
  'q',
  'search',
  'format',
  'timeout',
  'include-total',
  'api-version',
  'fields',
  'expand',
  'profile',
  'verbose',
] as const

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

export function positiveInteger(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new UsageError(`--${name} takes a whole number from 1 to ${max}`)
  return n
}

/**
 * The collection's filters from flags (`--status paid --amount-gte 100`), checked against its
 * declaration before any request: every option not in `own` must be one of them.
 */
export function filterQuery(
  resource: Resource,
  options: Record<string, unknown>,
  own: readonly string[],
): URLSearchParams {
  const flags = filterFlags(resource)
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(options)) {
    if (key === '--' || key.length === 1 || value === undefined) continue
    const name = kebab(key)
    if (own.includes(name)) continue
    const flag = flags.find((f) => f.flag === name)
    if (!flag) {
      const hint = suggest(name, [...flags.map((f) => f.flag), ...own])
      throw new UsageError(
        `unknown filter --${name} for ${resource.name}${hint ? ` (did you mean --${hint}?)` : ''}; see: api list ${resource.name} --help`,
      )
    }
    // A repeated filter (`--status paid --status shipped`) is the comma list the server takes
    // for equality; a range bound given twice has no such meaning.
    const values = (Array.isArray(value) ? value : [value]).map(String)
    if (values.length > 1 && flag.op !== 'eq') throw new UsageError(`--${name} is given more than once`)
    params.set(flag.param, values.join(','))
  }
  return params
}

/** The query string of a list: filters from flags, checked against the declaration before any request. */
export function listQuery(
  schema: Schema,
  prefix: string,
  spec: string,
  options: Record<string, unknown>,
): { path: string; columns: Columns; target: Target } {
  const target = parseTarget(schema, prefix, spec)
  if (target.id) throw new UsageError(`api list takes a collection, not a record (try: api get ${spec})`)
  const params = filterQuery(target.resource, options, LIST_OPTIONS)
  if (options.q !== undefined) params.set('q', String(options.q))
  if (options.search !== undefined) params.set('search', String(options.search))
  if (options.sort !== undefined) params.set('sort', String(options.sort))
  if (options.includeTotal) params.set('include_total', 'true')
  const shape = shapeParams(options)
  for (const [name, value] of shape) params.set(name, value)
  params.set(
    'limit',
    String(
      options.limit === undefined ? (options.all ? 100 : 20) : positiveInteger('limit', options.limit, 100),
    ),
  )
  // With --fields or --expand a table shows what the server sent, in its order.
  const columns = shape.size > 0 ? 'keys' : columnsOf(target.resource)
  return { path: `${target.path}?${params}`, columns, target }
}

/**
 * `--fields a,b` and `--expand rel[,rel.sub]` as query parameters, for `api list` and `api get`.
 * The server checks the names (400 naming the field or relation).
 */
export function shapeParams(options: Record<string, unknown>): URLSearchParams {
  const params = new URLSearchParams()
  for (const name of ['fields', 'expand'] as const) {
    const value = options[name]
    if (value === undefined) continue
    if (typeof value !== 'string' || value === '' || Array.isArray(value))
      throw new UsageError(
        `--${name} takes one comma-separated list, such as --${name} ${name === 'fields' ? 'id,status' : 'user'}`,
      )
    params.set(name, value)
  }
  return params
}

/**
 * `api list COLLECTION [--FILTER VALUE]...`: one page, or with `--all` every page, streamed as it
 * arrives (constant memory), with a progress line when stderr is a terminal; with
 * `--include-total`, the server's count (`20 of 10,008`).
 */
export async function list(ctx: Context, spec: string, options: Record<string, unknown>): Promise<void> {
  const { path, columns, target } = listQuery(ctx.schema, ctx.prefix, spec, options)
  const maxItems =
    options.maxItems === undefined ? Number.POSITIVE_INFINITY : positiveInteger('max-items', options.maxItems)
  const stream = new RecordStream(ctx.io, ctx.format, columns)
  const first = readPage(await ctx.api().json('GET', path))
  const all = Boolean(options.all)
  const { more, total } = await streamPages(ctx, first, stream, { all, maxItems })
  endListing(ctx, stream, total, target.resource.name)
  noticeMoreRecords(
    ctx,
    { more, written: stream.written },
    { all, maxItems, sizeChosen: options.limit !== undefined },
  )
}

const row = (left: string, right: string) => `  ${left.padEnd(32)}${right}`

/**
 * The filter of a help's example, with a value that works as typed: an enum's first value, `true`,
 * else an id to put in (`--user-id usr_…`), else a date. A made-up `VALUE` would only fail.
 */
export function exampleFilter(schema: Schema, resource: Resource, nested: boolean): string | undefined {
  // Under a parent's path (`books/bok_…/chapters`) the parent's id is given already.
  const flags = filterFlags(resource).filter(
    (f) => f.op === 'eq' && !(nested && f.field === resource.parent?.field),
  )
  const of = (kind: string) => flags.find((f) => resource.fields[f.field]?.kind === kind)
  const choice = of('enum')
  if (choice) return `--${choice.flag} ${resource.fields[choice.field]!.values![0]}`
  const yes = of('boolean')
  if (yes) return `--${yes.flag} true`
  const reference = of('reference')
  const target = reference && schema.byName(resource.fields[reference.field]!.references ?? '')
  if (reference && target) return `--${reference.flag} ${target.prefix}_…`
  return filterFlags(resource).some((f) => f.flag === 'created-after')
    ? '--created-after 2026-01-01'
    : undefined
}

/** `api list COLLECTION --help`: the real filters and sort fields of that collection. */
export function listHelp(schema: Schema, spec: string): string {
  const { resource } = parseTarget(schema, '', spec)
  const flags = filterFlags(resource)
  const sortable = resource.sortable.map((f) => f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`))
  const describe = (op: string, field: string) => {
    const kind = resource.fields[field]?.kind
    const list = kind === 'enum' || kind === 'reference' ? ' (several: a,b,c)' : ''
    const values = resource.fields[field]?.values ? `: ${resource.fields[field]!.values!.join(', ')}` : ''
    return (
      {
        eq: `${field} equals${list}${values}`,
        gte: `${field} at least`,
        lte: `${field} at most`,
        gt: `${field} after (ISO 8601)`,
        lt: `${field} before (ISO 8601)`,
      }[op] ?? field
    )
  }
  const example = exampleFilter(schema, resource, spec.includes('/'))
  const relations = relationsOf(schema, resource).map((r) => r.name)
  const lines = [
    `Usage: api list ${spec} [options]`,
    '',
    `Lists ${resource.name}, newest first.`,
    '',
    'Filters:',
    ...flags.map((f) => row(`--${f.flag} <value>`, describe(f.op, f.field))),
    ...(resource.searchable.length > 0
      ? [row('--q <text>', `full-text search in ${resource.searchable.join(', ')}`)]
      : []),
    '',
    'Options:',
    row('--sort <keys>', `comma-separated, -field for descending (${sortable.join(', ')})`),
    row('--limit <n>', 'records per page, 1-100 (default 20; 100 with --all)'),
    row('--all', 'follow every page, streaming records as they arrive'),
    row('--max-items <n>', 'stop after n records'),
    row('--include-total', 'count the matching records: 20 of 10,008 (table footer, or stderr)'),
    row('--fields <names>', 'only these fields (id always): id,status; user.name with --expand user'),
    row(
      '--expand <relations>',
      `related records inline, two levels at most${relations.length > 0 ? ` (${relations.join(', ')})` : ''}`,
    ),
    row('--format <format>', 'json, ndjson or table (table on a terminal, JSON when piped)'),
    row('--api-version <version>', 'v2 (the default) or v1 (deprecated)'),
    '',
    'Examples:',
    `  api list ${spec}${example ? ` ${example}` : ''}`,
    `  api list ${spec} --all --format ndjson | wc -l`,
  ]
  return `${lines.join('\n')}\n`
}
