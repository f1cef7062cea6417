import { serverSentEvents } from '../../shared/server-sent-events.ts'
import type { Context } from '../context.ts'
import { EXIT, UsageError } from '../errors.ts'
import { parseBody } from '../http.ts'
import { parseItems, readData } from '../items.ts'
import { printValue } from '../output.ts'

/** The first operation keyword of a document, comments and strings aside. */
function operationType(document: string): string {
  const stripped = document.replace(/#[^\n]*/g, '').replace(/"""[\s\S]*?"""|"(?:\\.|[^"\\])*"/g, '""')
  return /^\s*(query|mutation|subscription)\b/.exec(stripped)?.[1] ?? 'query'
}

/**
 * `api graphql 'query {...}' [--var k=v]... [--var n:=5] [--operation Name]`. Queries and
 * mutations print the response (exit 1 when it has errors); a subscription prints one JSON object
 * per event, as NDJSON, until the server ends it or the user interrupts.
 */
export async function graphql(
  ctx: Context,
  document: string,
  options: Record<string, unknown>,
): Promise<number> {
  const text = document.startsWith('@') ? await readData(ctx.io, document) : document
  const vars = [options.var ?? []].flat().map(String)
  const body = JSON.stringify({
    query: text,
    variables: vars.length > 0 ? parseItems(vars) : undefined,
    operationName: options.operation === undefined ? undefined : String(options.operation),
  })
  if (operationType(text) === 'subscription') return subscribe(ctx, body)
  const response = await ctx.api().send('POST', '/graphql', {
    body,
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json, application/json',
    },
  })
  // A 400 under application/graphql-response+json carries the reasons in `errors`: keep them.
  const copy = response.status === 400 ? response.clone() : null
  const answer = (await parseBody(response).catch(async (error) => {
    if (!copy) throw error
    printErrors(ctx, ((await copy.json().catch(() => null)) as { errors?: unknown } | null)?.errors)
    return null
  })) as { errors?: unknown } | null
  if (answer === null) throw new UsageError('the server could not parse or validate the document')
  printValue(ctx.io, ctx.format === 'table' ? 'json' : ctx.format, answer)
  return printErrors(ctx, answer.errors) > 0 ? 1 : 0
}

/** GraphQL errors on stderr: code (extensions.code), message and field details; returns how many. */
function printErrors(ctx: Context, errors: unknown): number {
  if (!Array.isArray(errors)) return 0
  for (const error of errors as { message?: unknown; extensions?: { code?: unknown; details?: unknown } }[]) {
    const code = typeof error?.extensions?.code === 'string' ? ` ${error.extensions.code}` : ''
    ctx.io.stderr(`error${code}: ${String(error?.message ?? 'unknown error')}\n`)
    const details = error?.extensions?.details
    for (const d of Array.isArray(details) ? (details as { field?: unknown; message?: unknown }[]) : [])
      if (typeof d?.field === 'string') ctx.io.stderr(`  ${d.field}: ${String(d.message)}\n`)
  }
  return errors.length
}

/** GraphQL over SSE, distinct-connections mode: `event: next` carries each result. */
async function subscribe(ctx: Context, body: string): Promise<number> {
  const response = await ctx.api().send('POST', '/graphql', {
    body,
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
  })
  if (!response.ok || !response.body) {
    await parseBody(response)
    return 1
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let interrupted = false
  void ctx.io.interrupted.then(() => {
    interrupted = true
    return reader.cancel()
  })
  for await (const message of serverSentEvents(reader)) {
    if (message.event === 'complete') {
      await reader.cancel()
      break
    }
    if (message.data) ctx.io.stdout(`${JSON.stringify(JSON.parse(message.data))}\n`)
  }
  // Only Ctrl-C ends a subscription as asked; the server ending it (a restart, a dropped
  // connection, an error) is a failure the caller must see.
  if (interrupted) return EXIT.interrupted
  ctx.io.stderr('api: the server ended the subscription\n')
  return EXIT.api
}
