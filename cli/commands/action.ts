import type { CAC } from 'cac'
import { actionOf } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { printValue } from '../output.ts'
import { parseTarget, suggest } from '../resources.ts'

/**
 * `api action COLLECTION ID ACTION`: POST /{collection}/{id}/{action} with `{}`, and prints the
 * changed record. It sends an Idempotency-Key (a fresh one unless given) so that the client's
 * automatic retries can never act twice.
 */
async function action(
  ctx: Context,
  collection: string,
  id: string,
  name: string,
  options: Record<string, unknown>,
): Promise<void> {
  if (collection.includes('/'))
    throw new UsageError(`api action takes a collection name, not "${collection}"`)
  const target = parseTarget(ctx.schema, ctx.prefix, collection, id)
  const actions = target.resource.actions.map((a) => a.name)
  if (!actionOf(target.resource, name)) {
    const hint = suggest(name, actions)
    throw new UsageError(
      actions.length === 0
        ? `${target.resource.name} has no actions`
        : `${target.resource.name} has no action "${name}"${hint ? ` (did you mean ${hint}?)` : ''}; its actions: ${actions.join(', ')}`,
    )
  }
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Idempotency-Key':
      options.idempotencyKey === undefined ? crypto.randomUUID() : String(options.idempotencyKey),
  }
  if (options.ifMatch !== undefined) headers['If-Match'] = String(options.ifMatch)
  const record = await ctx.api().json('POST', `${target.path}/${name}`, { body: '{}', headers })
  printValue(ctx.io, ctx.format, record)
}

type Runner = (
  command: (ctx: Context, ...args: never[]) => Promise<unknown>,
) => (...args: unknown[]) => Promise<void>

/** `books: lend, return; webhook-endpoints: rotate-secret, test`, from the learned collections. */
const declared = (schema: Schema) =>
  schema.resources
    .filter((r) => r.actions.length > 0)
    .map((r) => `${r.name}: ${r.actions.map((a) => a.name).join(', ')}`)
    .join('; ')

/** Registers `api action` on the command line, with examples made from the learned collections. */
export function actionCommand(cli: CAC, run: Runner, schema: Schema, examples: readonly string[]): void {
  const actions = declared(schema)
  const command = cli
    .command(
      'action <collection> <id> <action>',
      `Run an action on a record${actions ? ` (${actions})` : ''}`,
    )
    .option('--if-match <etag>', 'Only if the record still has this ETag')
    .option('--idempotency-key <key>', 'Idempotency-Key to send (default: a fresh one)')
  for (const example of examples) command.example(example)
  command.action(
    run((ctx, collection: string, id: string, name: string, options: Record<string, unknown>) =>
      action(ctx, collection, id, name, options),
    ),
  )
}
