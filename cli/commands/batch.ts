import type { CAC } from 'cac'
import { STDIN_ARGUMENT } from '../argv.ts'
import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { readData } from '../items.ts'
import { colorsEnabled, printValue, renderTable } from '../output.ts'

/** Batches are v2's (docs/bulk.md, "Atomic batches"): v1 takes no new endpoints. */
const BATCH_PATH = '/api/v2/batch'

interface Result {
  status: number
  body: Record<string, unknown> | null
}

/** FILE's batch: `{"operations": [...]}` as the server takes it, or a bare array of operations. */
function batchBody(file: string, text: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON (${(error as Error).message})`)
  }
  if (Array.isArray(parsed)) return { operations: parsed }
  if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>
  throw new UsageError(`${file} must hold {"operations": [...]} or an array of operations`)
}

/** What a table shows of each operation: its place, what it asked, and what came of it. */
function rows(body: Record<string, unknown>, results: readonly Result[]): Record<string, unknown>[] {
  const sent = Array.isArray(body.operations) ? (body.operations as Record<string, unknown>[]) : []
  return results.map((result, i) => ({
    op: i,
    method: sent[i]?.method,
    path: sent[i]?.path,
    status: result.status,
    id: result.body?.id ?? '',
  }))
}

/**
 * `api batch FILE` (`-` for standard input): POST /api/v2/batch with the file's operations, all
 * applied or none. It sends an Idempotency-Key (a fresh one unless given), so the client's own
 * retries after a dropped connection never apply a batch twice. A failed batch is an API error:
 * exit 1, the server's error on stderr naming the operation (`operations[3].body.pages`).
 */
async function batch(ctx: Context, file: string, options: Record<string, unknown>): Promise<void> {
  if (ctx.prefix !== '/api/v2') throw new UsageError('api batch speaks v2 only: v1 has no batches')
  const stdin = file === '-' || file === STDIN_ARGUMENT
  const body = batchBody(stdin ? 'standard input' : file, await readData(ctx.io, stdin ? '@-' : `@${file}`))
  const key = options.idempotencyKey === undefined ? crypto.randomUUID() : String(options.idempotencyKey)
  const answer = await ctx.api().json<{ results: Result[] }>('POST', BATCH_PATH, {
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
  })
  if (ctx.format === 'table') {
    const table = renderTable(
      rows(body, answer.results),
      ['op', 'method', 'path', 'status', 'id'],
      colorsEnabled(ctx.io),
      ctx.io.columns,
    )
    ctx.io.stdout(table)
  } else printValue(ctx.io, ctx.format, ctx.format === 'ndjson' ? answer.results : answer)
}

type Runner = (
  command: (ctx: Context, ...args: never[]) => Promise<unknown>,
) => (...args: unknown[]) => Promise<void>

/**
 * A batch on standard input that runs against any server: the service's own users, always served
 * (a create, a change through `${u.id}`, and a delete, so that it runs again).
 */
const EXAMPLE_OPERATIONS = [
  { method: 'POST', path: '/api/v2/users', body: { name: 'Grace', email: 'grace@example.com' }, ref: 'u' },
  { method: 'PATCH', path: '/api/v2/users/${u.id}', body: { name: 'Grace Hopper' } },
  { method: 'DELETE', path: '/api/v2/users/${u.id}' },
]

/** Registers `api batch` on the command line, with its example. */
export function batchCommand(cli: CAC, run: Runner): void {
  const command = cli
    .command(
      'batch <file>',
      'Run the writes of a JSON file (- for standard input) in one transaction, all or none',
    )
    .option(
      '--idempotency-key <key>',
      'Send this Idempotency-Key (default: a new one): a rerun replays the answer',
    )
  command.example(`echo '${JSON.stringify(EXAMPLE_OPERATIONS)}' | api batch -`)
  command.action(run((ctx, file: string, options) => batch(ctx, file, options)))
}
