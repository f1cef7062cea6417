import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { readData } from '../items.ts'
import { type Columns, printValue, RecordStream } from '../output.ts'
import { endListing, noticeMoreRecords, readPage, streamPages } from '../paging.ts'
import { columnsOf, parseTarget } from '../resources.ts'
import { sqlShape, withSqlLimit } from '../sql-body.ts'
import { positiveInteger } from './list.ts'

const KINDS = ['sql', 'jsonpath', 'form', 'json'] as const
type Kind = (typeof KINDS)[number]

const TYPES: Record<Kind, string> = {
  sql: 'application/sql',
  jsonpath: 'application/jsonpath',
  form: 'application/x-www-form-urlencoded',
  json: 'application/json',
}

/** A QUERY body as it will be sent, and what it already says about paging. */
interface QueryBody {
  text: string
  /** Query parameters of the URL (JSONPath's page size goes there). */
  search: string
  /** The body sets its own page size (`LIMIT`, `limit=`). */
  hasLimit: boolean
  /** The body pages by offset or page number, whose answers carry no link to the next page. */
  offsetPaging: string | null
  /** The answer holds chosen fields, in the order asked (`SELECT id, amount`). */
  columnList: boolean
  /** Adds a page size the body does not set. */
  withLimit: (limit: number) => QueryBody
}

async function readBody(ctx: Context, kind: Kind, options: Record<string, unknown>): Promise<QueryBody> {
  const plain = (text: string): QueryBody => ({
    text,
    search: '',
    hasLimit: false,
    offsetPaging: null,
    columnList: false,
    withLimit: () => plain(text),
  })
  if (kind === 'form') {
    const params = new URLSearchParams()
    for (const pair of [options.form].flat() as string[]) {
      const eq = String(pair).indexOf('=')
      if (eq < 1) throw new UsageError(`--form ${pair} is not key=value`)
      params.append(String(pair).slice(0, eq), String(pair).slice(eq + 1))
    }
    const form = (p: URLSearchParams): QueryBody => ({
      ...plain(p.toString()),
      hasLimit: p.has('limit') || p.has('per_page'),
      offsetPaging: ['offset', 'page'].find((k) => p.has(k)) ?? null,
      withLimit: (limit) => form(new URLSearchParams([...p, ['limit', String(limit)]])),
    })
    return form(params)
  }
  let text = await readData(ctx.io, String(options[kind]))
  if (kind === 'jsonpath') {
    // RFC 9535 allows no blank around a JSONPath query and the server holds to it; the newline
    // that ends a file (`--jsonpath @q.jsonpath`) or an `echo` into `@-` is not part of the query.
    text = text.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '')
    return { ...plain(text), withLimit: (limit) => ({ ...plain(text), search: `?limit=${limit}` }) }
  }
  if (kind === 'sql') {
    const shape = sqlShape(text)
    if (!shape) return plain(text)
    return {
      ...plain(text),
      hasLimit: shape.hasLimit,
      offsetPaging: shape.hasOffset ? 'OFFSET' : null,
      columnList: shape.columnList,
      withLimit: (limit) => ({ ...plain(withSqlLimit(text, shape, limit)), columnList: shape.columnList }),
    }
  }
  let object: Record<string, unknown> | null = null
  try {
    const parsed: unknown = JSON.parse(text)
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      object = parsed as Record<string, unknown>
  } catch {}
  // Not an object: sent as it is, for the server to say what is wrong with it.
  if (!object) return plain(text)
  const json = object
  return {
    ...plain(text),
    hasLimit: 'limit' in json || 'per_page' in json,
    offsetPaging: ['offset', 'page'].find((k) => k in json) ?? null,
    withLimit: (limit) => plain(JSON.stringify({ ...json, limit })),
  }
}

/**
 * `api query COLLECTION --sql ... | --jsonpath ... | --form k=v... | --json '{...}'`: one HTTP
 * QUERY request (RFC 10008) whose body type says how to read it, then, with `--all`, every page
 * after it through the stored query's `pagination.next`, streamed like `api list --all`.
 * `--limit` is the page size, written into the body as its type allows (SQL `LIMIT`, `limit=`,
 * JSONPath's URL). The server's errors (405, 415, 422) are shown as for any other request.
 */
export async function query(ctx: Context, spec: string, options: Record<string, unknown>): Promise<void> {
  const target = parseTarget(ctx.schema, ctx.prefix, spec)
  const given = KINDS.filter((k) => options[k] !== undefined)
  if (given.length !== 1) throw new UsageError('give exactly one of --sql, --jsonpath, --form or --json')
  const kind = given[0]!
  const all = Boolean(options.all)
  const limit = options.limit === undefined ? undefined : positiveInteger('limit', options.limit, 100)
  const maxItems =
    options.maxItems === undefined ? Number.POSITIVE_INFINITY : positiveInteger('max-items', options.maxItems)
  let body = await readBody(ctx, kind, options)
  if (limit !== undefined && body.hasLimit)
    throw new UsageError(
      `give the page size once: --limit or the ${kind === 'sql' ? 'LIMIT' : 'limit'} of the query`,
    )
  if (all && body.offsetPaging)
    throw new UsageError(
      `--all follows each page's link to the next, which ${body.offsetPaging} paging does not give; leave ${body.offsetPaging} out`,
    )
  const pageSize = limit ?? (all && !body.hasLimit ? 100 : undefined)
  if (pageSize !== undefined) body = body.withLimit(pageSize)
  const answer = await ctx.api().json('QUERY', `${target.path}${body.search}`, {
    body: body.text,
    headers: { 'Content-Type': TYPES[kind] },
  })
  if (!answer || typeof answer !== 'object' || !Array.isArray((answer as { data?: unknown }).data)) {
    // Not a page (a stored result of another shape): shown as it came.
    printValue(ctx.io, ctx.format, answer)
    return
  }
  const columns: Columns = body.columnList ? 'keys' : columnsOf(target.resource)
  const stream = new RecordStream(ctx.io, ctx.format, columns)
  const { more, total } = await streamPages(ctx, readPage(answer), stream, { all, maxItems })
  endListing(ctx, stream, total, target.resource.name)
  noticeMoreRecords(
    ctx,
    { more, written: stream.written },
    { all, maxItems, sizeChosen: limit !== undefined || body.hasLimit },
  )
}
