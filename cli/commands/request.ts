import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { parseBody } from '../http.ts'
import { parseItems, readData } from '../items.ts'
import { printValue } from '../output.ts'

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'OPTIONS']

function headerList(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const raw of value === undefined ? [] : Array.isArray(value) ? value : [value]) {
    const text = String(raw)
    const colon = text.indexOf(':')
    if (colon < 1) throw new UsageError(`-H "${text}" is not "Name: value"`)
    headers[text.slice(0, colon).trim()] = text.slice(colon + 1).trim()
  }
  return headers
}

/**
 * A path, or a full URL of the configured server (copied from a `Location` or `next` link) as its
 * path. A URL of another server is refused: the request would carry this server's token there.
 */
function pathOnServer(server: string, target: string): string {
  if (target.startsWith('/')) return target
  if (!/^https?:\/\//i.test(target) || !URL.canParse(target))
    throw new UsageError('PATH starts with / (for example /api/v2/users), or is a URL of the server')
  const url = new URL(target)
  const base = new URL(server)
  if (url.origin !== base.origin)
    throw new UsageError(
      `${url.origin} is not the configured server (${base.origin}); the token is only sent there`,
    )
  // API_URL may carry a base path (`https://host/base`): requests are sent under it anyway.
  const basePath = base.pathname.replace(/\/+$/, '')
  const path =
    basePath && url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : url.pathname
  return `${path}${url.search}`
}

/**
 * `api request METHOD PATH [key=value]... [-H 'K: v']... [--input file|-] [-i]`: any request,
 * authenticated like the others. `-i` prints the status line and headers before the body.
 */
export async function request(
  ctx: Context,
  method: string,
  path: string,
  items: string[],
  options: Record<string, unknown>,
): Promise<number> {
  const verb = method.toUpperCase()
  if (!METHODS.includes(verb)) throw new UsageError(`unknown method ${method} (${METHODS.join(', ')})`)
  path = pathOnServer(ctx.server, path)
  // -H and --header are read apart (exact text); a header given both ways lands once, by name.
  const headers = headerList([options.H, options.header].flat().filter((h) => h !== undefined))
  let body: string | undefined
  if (options.input !== undefined && items.length > 0)
    throw new UsageError('give fields or --input, not both')
  if (options.input !== undefined) body = await readData(ctx.io, `@${String(options.input)}`)
  else if (items.length > 0) {
    body = JSON.stringify(parseItems(items))
    headers['Content-Type'] ??= 'application/json'
  }
  const response = await ctx.api().send(verb, path, { body, headers })
  if (options.include || options.i) {
    ctx.io.stdout(`HTTP ${response.status} ${response.statusText}\n`)
    for (const [name, value] of response.headers) ctx.io.stdout(`${name}: ${value}\n`)
    ctx.io.stdout('\n')
    const text = await response.text()
    if (text) ctx.io.stdout(text.endsWith('\n') ? text : `${text}\n`)
    // The answer is the output here; a failed status still exits 1 for scripts.
    return response.ok ? 0 : 1
  }
  const value = await parseBody(response)
  // Any JSON answer, shown as JSON (indented on a terminal), not as a record table.
  if (value !== null && value !== '') printValue(ctx.io, ctx.format === 'table' ? 'json' : ctx.format, value)
  return 0
}
