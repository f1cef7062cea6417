import type { CAC } from 'cac'
import { serverSentEvents } from '../../shared/server-sent-events.ts'
import { newSecret, webhookBody, webhookHeaders } from '../../shared/webhook-signature.ts'
import type { Context } from '../context.ts'
import { EXIT, UsageError } from '../errors.ts'
import { parseBody } from '../http.ts'

/** Longest wait for the local receiver's answer, as the server waits for a real one. */
const FORWARD_TIMEOUT_MS = 15_000

/** One event of the subscription as the server's deliveries send it, signed and POSTed to `to`. */
async function forward(
  ctx: Context,
  to: string,
  secret: string,
  event: Record<string, unknown>,
): Promise<void> {
  const body = webhookBody(event)
  const headers = webhookHeaders([secret], String(event.id), Math.floor(Date.now() / 1000), body)
  let outcome: string
  try {
    const response = await fetch(to, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    })
    await response.body?.cancel()
    outcome = String(response.status)
  } catch (error) {
    outcome = `failed: ${(error as Error).message}`
  }
  ctx.io.stdout(`${String(event.createdAt)} ${String(event.type)} ${String(event.id)} -> ${outcome}\n`)
}

/**
 * `api webhooks listen --forward-to URL [--events a,b] [--secret whsec_…]`: subscribes to the
 * organization's events (GraphQL over SSE) and POSTs each to a local URL with the Standard
 * Webhooks headers, signed with a secret it prints (or the one given), so that a receiver can be
 * built before an endpoint is registered. Runs until interrupted.
 */
async function listen(ctx: Context, options: Record<string, unknown>): Promise<number> {
  const to = options.forwardTo === undefined ? undefined : String(options.forwardTo)
  if (!to || !URL.canParse(to) || !/^https?:$/.test(new URL(to).protocol))
    throw new UsageError('--forward-to needs an http(s) URL, e.g. http://127.0.0.1:3000/hook')
  // A secret given on the command line shows in `ps`; API_WEBHOOK_SECRET does not.
  const given =
    options.secret !== undefined
      ? { secret: String(options.secret), from: '--secret' }
      : ctx.io.env.API_WEBHOOK_SECRET
        ? { secret: ctx.io.env.API_WEBHOOK_SECRET, from: 'API_WEBHOOK_SECRET' }
        : undefined
  const secret = given?.secret ?? newSecret()
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret))
    throw new UsageError(`${given?.from ?? '--secret'} must be whsec_ and base64`)
  const types = options.events === undefined ? [] : String(options.events).split(',').filter(Boolean)
  const response = await ctx.api().send('POST', '/graphql', {
    body: JSON.stringify({
      query:
        'subscription Listen($types: [String!]) { events(types: $types) { id type resource resourceId data createdAt actor { type id } requestId } }',
      variables: { types: types.length > 0 ? types : null },
    }),
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
  })
  if (!response.ok || !response.body) {
    await parseBody(response)
    return 1
  }
  // Only a secret made here is printed: one given is already known, and stays out of the output.
  const signing = given ? `Signing with the secret of ${given.from}` : `Signing secret: ${secret}`
  ctx.io.stderr(`Forwarding events to ${to}\n${signing}\nPress Ctrl-C to stop.\n`)
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
    if (!message.data) continue
    const payload = JSON.parse(message.data) as {
      data?: { events?: Record<string, unknown> }
      errors?: { message: string }[]
    }
    if (payload.errors) {
      for (const e of payload.errors) ctx.io.stderr(`error: ${e.message}\n`)
      return 1
    }
    if (payload.data?.events) await forward(ctx, to, secret, payload.data.events)
  }
  // As for \`api graphql\` subscriptions: only Ctrl-C ends it as asked; the server ending it (a
  // restart, a dropped connection) must not look like success to a script that watches it.
  if (interrupted) return EXIT.interrupted
  ctx.io.stderr('api: the server ended the subscription\n')
  return EXIT.api
}

type Runner = (
  command: (ctx: Context, ...args: never[]) => Promise<unknown>,
) => (...args: unknown[]) => Promise<void>

/** Registers `api webhooks listen` on the command line. */
export function webhooksCommand(cli: CAC, run: Runner): void {
  cli
    .command(
      'webhooks <subcommand>',
      'listen: forward live events to a local URL, signed as webhook deliveries are',
    )
    .option('--forward-to <url>', 'Where to POST each event (http://127.0.0.1:3000/hook)')
    .option('--events <types>', 'Only these event types, comma-separated (default: all)')
    .option(
      '--secret <whsec>',
      'Sign with this secret (prefer API_WEBHOOK_SECRET; default: a new one, printed)',
    )
    .example('api webhooks listen --forward-to http://127.0.0.1:3000/hook')
    .action(
      run(async (ctx, subcommand: string, options: Record<string, unknown>) => {
        if (subcommand !== 'listen')
          throw new UsageError(`api webhooks has one subcommand, listen (not "${subcommand}")`)
        return await listen(ctx, options)
      }),
    )
}
