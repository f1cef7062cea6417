import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { parseBody } from '../http.ts'
import { noticeMoreRecords } from '../paging.ts'

const COUNT = new Intl.NumberFormat('en-US')

/** The `rel="next"` target of a Link header (RFC 8288), when it is a path on the same server. */
function nextOf(link: string | null): string | null {
  for (const value of (link ?? '').split(',')) {
    const match = /^\s*<([^>]*)>\s*;\s*rel="?next"?\s*$/.exec(value)
    // Printable ASCII only, and a path: nothing a server sends reaches another host or the terminal.
    if (match && /^\/[\x21-\x7e]*$/.test(match[1]!)) return match[1]!
  }
  return null
}

/** Writes a CSV body as it arrives; after the first page, without its header row. */
async function writeBody(ctx: Context, response: Response, header: boolean): Promise<void> {
  if (!response.body) return
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  // The header row names columns, which hold no line break: it ends at the first CRLF.
  let skipping = !header
  let held = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    let text = value
    if (skipping) {
      held += text
      const end = held.indexOf('\r\n')
      if (end === -1) continue
      text = held.slice(end + 2)
      skipping = false
    }
    if (text) ctx.io.stdout(text)
  }
}

/**
 * `api list COLLECTION --format csv`: asks the server for CSV (`Accept: text/csv`) and writes it as
 * it comes; with `--all` it follows `Link: <...>; rel="next"` to the last page, writing the header
 * row once. The columns are the server's: every page of an export has the same.
 */
export async function exportCsv(
  ctx: Context,
  path: string,
  options: Record<string, unknown>,
  noun: string,
): Promise<void> {
  if (options.maxItems !== undefined)
    throw new UsageError('--max-items does not apply to --format csv; --limit sets the page size')
  const all = Boolean(options.all)
  const progress = ctx.io.stderrIsTTY && all
  let next: string | null = path
  let pages = 0
  let more = false
  while (next !== null) {
    const response = await ctx.api().send('GET', next, { headers: { Accept: 'text/csv' } })
    if (!response.ok) await parseBody(response)
    if (!(response.headers.get('content-type') ?? '').startsWith('text/csv'))
      throw new Error('the server did not answer with CSV (is it older than this CLI?)')
    if (pages === 0 && options.includeTotal) {
      const total = Number(response.headers.get('x-total-count'))
      if (Number.isSafeInteger(total)) ctx.io.stderr(`${COUNT.format(total)} ${noun} in all\n`)
    }
    await writeBody(ctx, response, pages === 0)
    pages++
    const link = nextOf(response.headers.get('link'))
    more = link !== null
    next = all ? link : null
    if (progress) ctx.io.stderr(`\rfetched ${pages} pages${next ? '…' : ''}   `)
  }
  if (progress) ctx.io.stderr('\n')
  noticeMoreRecords(
    ctx,
    { more, written: 0 },
    { all, maxItems: Number.POSITIVE_INFINITY, sizeChosen: options.limit !== undefined },
  )
}
