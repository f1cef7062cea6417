import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { readData } from '../items.ts'
import { printValue, RecordStream } from '../output.ts'
import { columnsOf, parseTarget } from '../resources.ts'

/**
 * `api query COLLECTION --sql ... | --jsonpath ... | --form k=v... | --json '{...}'`: one HTTP
 * QUERY request (RFC 10008) whose body type says how to read it. The server's answer, errors
 * included (405, 415, 422), is shown as for any other request.
 */
export async function query(ctx: Context, spec: string, options: Record<string, unknown>): Promise<void> {
  const target = parseTarget(spec)
  const given = (['sql', 'jsonpath', 'form', 'json'] as const).filter((k) => options[k] !== undefined)
  if (given.length !== 1) throw new UsageError('give exactly one of --sql, --jsonpath, --form or --json')
  const kind = given[0]!
  let body: string
  let type: string
  if (kind === 'form') {
    const params = new URLSearchParams()
    for (const pair of [options.form].flat() as string[]) {
      const eq = String(pair).indexOf('=')
      if (eq < 1) throw new UsageError(`--form ${pair} is not key=value`)
      params.append(String(pair).slice(0, eq), String(pair).slice(eq + 1))
    }
    body = params.toString()
    type = 'application/x-www-form-urlencoded'
  } else {
    body = await readData(ctx.io, String(options[kind]))
    // RFC 9535 allows no blank around a JSONPath query and the server holds to it; the newline
    // that ends a file (`--jsonpath @q.jsonpath`) or an `echo` into `@-` is not part of the query.
    if (kind === 'jsonpath') body = body.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '')
    type = { sql: 'application/sql', jsonpath: 'application/jsonpath', json: 'application/json' }[kind]
  }
  const answer = await ctx
    .api()
    .json<{ data?: unknown }>('QUERY', target.path, { body, headers: { 'Content-Type': type } })
  if (answer && Array.isArray(answer.data) && ctx.format !== 'json') {
    const stream = new RecordStream(ctx.io, ctx.format, columnsOf(target.resource))
    stream.page(answer.data as Record<string, unknown>[])
    stream.end()
  } else {
    printValue(
      ctx.io,
      ctx.format,
      ctx.format === 'json' && answer && Array.isArray(answer.data) ? answer.data : answer,
    )
  }
}
