import type { Context } from './context.ts'
import { type RecordStream, shownOfTotal } from './output.ts'

/** One page of a collection, as `GET` and `QUERY` answer it (docs/api.md, "Reading collections"). */
interface Page {
  data: unknown[]
  hasMore: boolean
  /** The path of the next page (`pagination.next`); null in offset and page styles. */
  next: string | null
  /** The number of matches, when the server counted them (`include_total=true`). */
  total: number | null
}

/** Checks that an answer is a page instead of trusting it to be one. */
export function readPage(body: unknown): Page {
  const { data, pagination } = (body ?? {}) as { data?: unknown; pagination?: unknown }
  if (!Array.isArray(data) || !pagination || typeof pagination !== 'object')
    throw new Error('the server did not answer with a page of records')
  const { hasMore, next, total } = pagination as Record<string, unknown>
  return {
    data,
    hasMore: hasMore === true,
    next: typeof next === 'string' && next.startsWith('/') ? next : null,
    total: typeof total === 'number' && Number.isSafeInteger(total) ? total : null,
  }
}

interface Paging {
  /** Follow `next` to the last page. */
  all: boolean
  /** Stop after this many records. */
  maxItems: number
}

/**
 * Writes the first page and, with `all`, every page after it, each before the next is asked for,
 * so memory stays flat however many there are. A progress line is drawn when stderr is a terminal.
 * Returns whether records were left behind and the server's count of the first page.
 */
export async function streamPages(
  ctx: Context,
  first: Page,
  stream: RecordStream,
  paging: Paging,
): Promise<{ more: boolean; total: number | null }> {
  const progress = ctx.io.stderrIsTTY && paging.all
  let page: Page | null = first
  let more = false
  while (page) {
    const room = paging.maxItems - stream.written
    stream.page(page.data.length > room ? page.data.slice(0, room) : page.data)
    more = page.hasMore || page.data.length > room
    const next: string | null = paging.all && more && stream.written < paging.maxItems ? page.next : null
    if (progress) ctx.io.stderr(`\rfetched ${stream.written} records${next ? '…' : ''}   `)
    page = next === null ? null : readPage(await ctx.api().json('GET', next))
  }
  if (progress) ctx.io.stderr('\n')
  return { more, total: first.total }
}

/**
 * Ends the output. A count the server made is shown as `20 of 10,008`: the table's footer, or a
 * line on stderr when the records go out as JSON (stdout stays a plain array).
 */
export function endListing(ctx: Context, stream: RecordStream, total: number | null, noun: string): void {
  const count = total === null ? undefined : shownOfTotal(stream.written, total)
  stream.end(count)
  if (count && ctx.format !== 'table') ctx.io.stderr(`${count} ${noun}\n`)
}

/**
 * Says on stderr that records were left behind (`more records follow; --all fetches them`), so a
 * first page is never taken for the whole: always on a terminal, and when the output goes to a
 * script unless it chose how many it wanted (`--limit`, `--max-items`, a page size in a query).
 */
export function noticeMoreRecords(
  ctx: Context,
  outcome: { more: boolean; written: number },
  paging: Paging & { sizeChosen: boolean },
): void {
  if (!outcome.more || paging.all || outcome.written >= paging.maxItems) return
  const chosen = paging.sizeChosen || Number.isFinite(paging.maxItems)
  if (ctx.io.stderrIsTTY || !chosen) ctx.io.stderr('more records follow; --all fetches them\n')
}
