import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { typedFields } from '../field-types.ts'
import { parseBody } from '../http.ts'
import { bodyOf } from '../items.ts'
import { printValue } from '../output.ts'
import { readPage } from '../paging.ts'
import { parseTarget } from '../resources.ts'
import { listQuery, shapeParams } from './list.ts'

const JSON_BODY = { 'Content-Type': 'application/json' }

/** `api get COLLECTION ID` (or `COLLECTION/ID`, `PARENT/ID/CHILD/ID`). */
export async function get(
  ctx: Context,
  spec: string,
  id: string | undefined,
  options: Record<string, unknown> = {},
): Promise<void> {
  const target = parseTarget(ctx.schema, ctx.prefix, spec, id)
  if (!target.id) throw new UsageError(`api get needs a record id (try: api list ${spec})`)
  const shape = shapeParams(options)
  const path = shape.size > 0 ? `${target.path}?${shape}` : target.path
  printValue(ctx.io, ctx.format, await ctx.api().json('GET', path))
}

/**
 * `api create COLLECTION key=value key:=json ...`: POST with an Idempotency-Key (a fresh one
 * unless given), so the client's automatic retries can never create the record twice.
 */
export async function create(ctx: Context, spec: string, items: string[], options: Record<string, unknown>) {
  const target = parseTarget(ctx.schema, ctx.prefix, spec)
  if (target.id) throw new UsageError(`api create takes a collection (try: api update ${spec} ...)`)
  const given = await bodyOf(ctx.io, items, options.data as string | undefined)
  const body = options.data === undefined ? typedFields(target.resource, given) : given
  const key = options.idempotencyKey === undefined ? crypto.randomUUID() : String(options.idempotencyKey)
  const created = await ctx.api().json('POST', target.path, {
    body: JSON.stringify(body),
    headers: { ...JSON_BODY, 'Idempotency-Key': key },
  })
  printValue(ctx.io, ctx.format, created)
}

/** `api update` (PATCH: only the given fields) and `api replace` (PUT: the whole record). */
export async function write(
  ctx: Context,
  method: 'PATCH' | 'PUT',
  spec: string,
  args: string[],
  options: Record<string, unknown>,
): Promise<void> {
  // The id may be part of the spec (books/bok_…) or the first argument.
  const withId = parseTarget(ctx.schema, ctx.prefix, spec)
  const target =
    withId.id || args.length === 0 || args[0]!.includes('=')
      ? withId
      : parseTarget(ctx.schema, ctx.prefix, spec, args[0])
  const items = target === withId ? args : args.slice(1)
  if (!target.id) throw new UsageError(`api ${method === 'PATCH' ? 'update' : 'replace'} needs a record id`)
  if (method === 'PATCH' && items.length === 0 && options.data === undefined)
    throw new UsageError('api update needs the fields to change (key=value, key:=json) or --data')
  const given = await bodyOf(ctx.io, items, options.data as string | undefined)
  const body = options.data === undefined ? typedFields(target.resource, given) : given
  const headers: Record<string, string> = { ...JSON_BODY }
  if (options.ifMatch !== undefined) headers['If-Match'] = String(options.ifMatch)
  printValue(
    ctx.io,
    ctx.format,
    await ctx.api().json(method, target.path, { body: JSON.stringify(body), headers }),
  )
}

/**
 * `api delete COLLECTION ID` deletes one record; `api delete COLLECTION [--FILTER VALUE]...`
 * deletes every matching record, after a question on a terminal, or with `--confirm` otherwise.
 */
export async function remove(
  ctx: Context,
  spec: string,
  id: string | undefined,
  options: Record<string, unknown>,
) {
  const target = parseTarget(ctx.schema, ctx.prefix, spec, id)
  if (target.id) {
    await ctx.api().json('DELETE', target.path)
    if (ctx.io.stderrIsTTY) ctx.io.stderr(`deleted ${target.id}\n`)
    return
  }
  const { confirm, fields: _fields, expand: _expand, ...filters } = options
  const { path } = listQuery(ctx.schema, ctx.prefix, spec, { ...filters, limit: undefined, all: undefined })
  const query = new URLSearchParams(path.slice(path.indexOf('?') + 1))
  query.delete('limit')
  query.set('confirm', target.resource.name)
  if (!confirm) {
    const interactive = ctx.io.stdinIsTTY && ctx.io.stderrIsTTY
    const filtered = query.size > 1
    const what = filtered
      ? `every ${target.resource.singular} matching the filters`
      : `EVERY ${target.resource.singular}`
    if (!interactive) throw new UsageError(`deleting ${what} needs --confirm when not on a terminal`)
    // The question says how many go: the server counts the same matches first.
    const count = new URLSearchParams(query)
    count.delete('confirm')
    count.set('limit', '1')
    count.set('include_total', 'true')
    const total = readPage(await ctx.api().json('GET', `${target.path}?${count}`)).total
    const noun = total === 1 ? target.resource.singular : target.resource.name
    const many =
      total === null
        ? what
        : `${filtered ? '' : 'all '}${total.toLocaleString('en-US')} ${noun}${filtered ? ' matching the filters' : ''}`
    if (!(await ctx.io.confirm(`Delete ${many} in ${target.path}?`))) throw new UsageError('nothing deleted')
  }
  const response = await ctx.api().send('DELETE', `${target.path}?${query}`)
  if (!response.ok) await parseBody(response)
  const deleted = Number(response.headers.get('deleted-count') ?? 0)
  printValue(ctx.io, ctx.format === 'table' ? 'json' : ctx.format, { deleted })
}
