#!/usr/bin/env bun
import { cac } from 'cac'
import kleur from 'kleur'
import { ApiError } from '../shared/errors.ts'
import type { Schema } from '../shared/schema/schema.ts'
import { PRODUCT_VERSION } from '../shared/version.ts'
import { joinDashedValues, rawOptions, withRawValues } from './argv.ts'
import { actionCommand } from './commands/action.ts'
import { aggregate } from './commands/aggregate.ts'
import { login, logout, whoami } from './commands/auth.ts'
import { batchCommand } from './commands/batch.ts'
import { conventionCommands } from './commands/conventions.ts'
import { graphql } from './commands/graphql.ts'
import { importFile, STDIN_FILE } from './commands/import.ts'
import { list, listHelp } from './commands/list.ts'
import { query } from './commands/query.ts'
import { create, get, remove, write } from './commands/records.ts'
import { request } from './commands/request.ts'
import { webhooksCommand } from './commands/webhooks.ts'
import { writeHelp } from './commands/write-help.ts'
import { type Context, makeContext } from './context.ts'
import { EXIT, exitCodeOf, UsageError } from './errors.ts'
import { globalHelp } from './help.ts'
import { collectionExamples } from './help-examples.ts'
import { type Io, processIo } from './io.ts'
import { collectionsFor, wordsOf } from './learn/for-command.ts'
import { colorsEnabled } from './output.ts'
import { checkOptions, unknownCommand } from './typos.ts'

/** The product's version (package.json's), not the runtime's. */
export const VERSION = PRODUCT_VERSION

/** Prints an error on stderr: the API's code, message and details, or a one-line reason. */
function report(io: Io, error: unknown): void {
  kleur.enabled = colorsEnabled({ env: io.env, stdoutIsTTY: io.stderrIsTTY })
  if (error instanceof ApiError) {
    io.stderr(`${kleur.red('error')} ${error.code} (${error.status}): ${error.message}\n`)
    for (const d of error.details) io.stderr(`  ${kleur.bold(d.field)}: ${d.message}\n`)
  } else {
    io.stderr(`${kleur.red('api:')} ${error instanceof Error ? error.message : String(error)}\n`)
  }
}

/** Runs one `api` command; returns the exit status (docs/cli.md). */
export async function main(typed: string[], io: Io): Promise<number> {
  const argv = joinDashedValues(typed)
  const raw = rawOptions(argv)
  let learned: { schema: Schema; version: string }
  try {
    learned = await collectionsFor(io, argv, raw)
  } catch (error) {
    report(io, error)
    return exitCodeOf(error)
  }
  const { schema, version } = learned
  const cli = cac('api')
  const examples = collectionExamples(schema, version)
  const withExamples = (command: ReturnType<typeof cli.command>, name: string) => {
    for (const example of examples[name] ?? []) command.example(example)
    return command
  }
  let status: number = EXIT.ok
  const run =
    (command: (ctx: Context, ...args: never[]) => Promise<unknown>, takes = { csv: false }) =>
    async (...args: unknown[]) => {
      const options = withRawValues(args.pop() as Record<string, unknown>, raw)
      const ctx = makeContext(io, options, schema)
      if (ctx.csv && !takes.csv)
        throw new UsageError(
          '--format csv is for api list and api aggregate (api list COLLECTION --format csv --all)',
        )
      kleur.enabled = colorsEnabled(io)
      const result = await (command as (...a: unknown[]) => Promise<number | undefined>)(
        ctx,
        ...args,
        options,
      )
      if (typeof result === 'number') status = result
    }

  cli.option(
    '--format <format>',
    'json, ndjson or table (default: table on a terminal, JSON when piped); csv for api list and api aggregate',
  )
  cli.option('--timeout <seconds>', 'Give up on a request after this long (default 30)')
  cli.option('--api-version <version>', 'v2 (the default) or v1 (deprecated)')
  cli.option('--profile <name>', 'Use this profile: its own server and login (default: API_PROFILE)')
  cli.option('--verbose', 'Print the HTTP exchange on stderr (tokens and secrets hidden)')
  cli.option('--version', 'Print the version of api')

  cli
    .command(
      'login',
      'Log in (device flow; --web for a browser on this machine; --client-credentials for CI)',
    )
    .option('--web', 'Authorization code + PKCE through a loopback redirect')
    .option('--client-credentials', 'Client credentials from API_CLIENT_ID/API_CLIENT_SECRET or the flags')
    .option('--client-id <id>', 'Client id for --client-credentials')
    .option('--client-secret <secret>', 'Client secret for --client-credentials (prefer API_CLIENT_SECRET)')
    .option('--scope <scopes>', 'Space-separated scopes to ask for (default: all you may have)')
    .option('--force', 'Log in again without asking, when already logged in')
    .example('api login')
    .example('API_CLIENT_ID=clt_… API_CLIENT_SECRET=cs_… api login --client-credentials')
    .action(run((ctx, options) => login(ctx, options)))
  cli.command('logout', 'Revoke and forget the stored login for API_URL').action(run((ctx) => logout(ctx)))
  cli
    .command('whoami', 'Show the user or client, organization, scopes and expiry')
    .action(run((ctx) => whoami(ctx)))

  withExamples(
    cli.command(
      'list <collection>',
      'List records; filters come from the collection (api list COLLECTION --help)',
    ),
    'list',
  )
    .allowUnknownOptions()
    .option('--all', 'Follow every page, streaming records as they arrive')
    .option('--max-items <n>', 'Stop after n records')
    .option('--limit <n>', 'Records per page (1-100)')
    .option('--sort <keys>', 'Sort keys, -field for descending')
    .option('--q <text>', 'Full-text search')
    .option('--include-total', 'Count the matching records')
    .option('--fields <names>', 'Only these fields (id always): id,status,user.name')
    .option(
      '--expand <relations>',
      'Related records inline, two levels at most (api list COLLECTION --help names them)',
    )
    .action(run((ctx, spec: string, options) => list(ctx, spec, options), { csv: true }))
  withExamples(
    cli.command(
      'aggregate <collection>',
      'Count and sum records by group: --group-by status --count --sum amount (filters as api list)',
    ),
    'aggregate',
  )
    .allowUnknownOptions()
    .option(
      '--group-by <keys>',
      'Fields to group by, comma-separated; a timestamp by day, week or month: created_at:day',
    )
    .option('--count', 'Count the records of each group (the default)')
    .option('--sum <fields>', 'Sum an integer field (repeatable, or comma-separated)')
    .option('--avg <fields>', 'Average of an integer field (repeatable, or comma-separated)')
    .option('--min <fields>', 'Least value of a sortable field (repeatable, or comma-separated)')
    .option('--max <fields>', 'Greatest value of a sortable field (repeatable, or comma-separated)')
    .option('--sort <keys>', 'Group keys and aggregates, -key for descending: -count, -sum(amount)')
    .option('--q <text>', 'Full-text search')
    .option('--limit <n>', 'Groups per page (1-100)')
    .option('--all', 'Follow every page of groups')
    .option('--max-items <n>', 'Stop after n groups')
    .option('--include-total', 'Count the groups')
    .action(run((ctx, spec: string, options) => aggregate(ctx, spec, options), { csv: true }))
  withExamples(
    cli.command('get <target> [id]', 'Show one record: api get COLLECTION ID (or COLLECTION/ID)'),
    'get',
  )
    .option('--fields <names>', 'Only these fields (id always): id,status,user.name')
    .option(
      '--expand <relations>',
      'Related records inline, two levels at most (api list COLLECTION --help names them)',
    )
    .action(run((ctx, spec: string, id: string | undefined, options) => get(ctx, spec, id, options)))
  withExamples(
    cli.command('create <collection> [...fields]', 'Create a record from key=value and key:=json fields'),
    'create',
  )
    .option('--data <json>', 'The whole body: JSON, @file.json or @- for standard input')
    .option('--idempotency-key <key>', 'Idempotency-Key to send (default: a fresh one)')
    .action(run((ctx, spec: string, fields: string[], options) => create(ctx, spec, fields, options)))
  for (const [name, method, verb] of [
    ['update', 'PATCH', 'Change some fields of a record (PATCH)'],
    ['replace', 'PUT', 'Replace a whole record (PUT): fields not given are reset'],
  ] as const) {
    withExamples(cli.command(`${name} <target> [...fields]`, verb), name)
      .option('--data <json>', 'The whole body: JSON, @file.json or @- for standard input')
      .option('--if-match <etag>', 'Only if the record still has this ETag')
      .action(run((ctx, spec: string, args: string[], options) => write(ctx, method, spec, args, options)))
  }
  withExamples(
    cli.command(
      'delete <target> [id]',
      'Delete a record, or every record matching the filters of api list COLLECTION --help (--confirm)',
    ),
    'delete',
  )
    .allowUnknownOptions()
    .option('--confirm', 'Confirm deleting many records (asked on a terminal otherwise)')
    .action(run((ctx, spec: string, id: string | undefined, options) => remove(ctx, spec, id, options)))
  withExamples(
    cli.command(
      'import <collection> <file>',
      'Create records from a CSV or NDJSON file, in chunks (- for stdin)',
    ),
    'import',
  )
    .option('--format <format>', 'csv or ndjson (default: from the extension .csv, .ndjson, .jsonl)')
    .option('--chunk-size <n>', 'Records per request, 1-1000 (default 500)')
    .option('--dry-run', 'Validate every row without writing anything')
    .action((spec: string, file: string, options: Record<string, unknown>) => {
      // Its --format names the file's format, not the output's.
      const { format, ...rest } = options
      return run((ctx, s: string, f: string, o: Record<string, unknown>) => importFile(ctx, s, f, o))(
        spec,
        file,
        { ...rest, inputFormat: format },
      )
    })
  actionCommand(cli, run, schema, examples.action ?? [])
  batchCommand(cli, run)
  webhooksCommand(cli, run)
  withExamples(
    cli.command('query <collection>', 'HTTP QUERY with an SQL, JSONPath, form or JSON body'),
    'query',
  )
    .option(
      '--sql <select>',
      'application/sql: SELECT … FROM <collection> WHERE …, or counts per group with GROUP BY, HAVING and count(*), sum, avg, min, max',
    )
    .option('--jsonpath <path>', "application/jsonpath: $[?@.status == 'paid']")
    .option('--form <pair>', 'application/x-www-form-urlencoded: key=value (repeatable)')
    .option('--json <json>', 'application/json: the GET parameters as JSON, plus filter')
    .option('--limit <n>', 'Records per page (1-100), written into the query')
    .option('--all', "Follow every page (the stored query's next), streaming records as they arrive")
    .option('--max-items <n>', 'Stop after n records')
    .action(run((ctx, spec: string, options) => query(ctx, spec, options)))
  cli
    .command(
      'graphql <document>',
      'Run a GraphQL query or mutation; subscriptions print NDJSON until interrupted',
    )
    .option('--var <item>', 'Variable: k=v (string) or k:=json (repeatable)')
    .option('--operation <name>', 'Operation to run, when the document has several')
    .example(`api graphql 'query { users(first: 5) { nodes { id name role } } }'`)
    .example(`api graphql 'query($n: Int) { users(first: $n) { totalCount } }' --var n:=2`)
    .action(run((ctx, document: string, options) => graphql(ctx, document, options)))
  cli
    .command(
      'request <method> <path> [...fields]',
      'Any request, authenticated: api request GET /api/v2/users',
    )
    .option('-H, --header <header>', "Header 'Name: value' (repeatable)")
    .option('--input <file>', 'Body from a file, or - for standard input')
    .option('-i, --include', 'Print the status line and headers before the body')
    .example('api request GET /api/versions -i')
    .example("api request GET '/api/v2/users?limit=5'")
    .action(
      run((ctx, method: string, path: string, fields: string[], options) =>
        request(ctx, method, path, fields, options),
      ),
    )

  conventionCommands(cli, run, VERSION)

  cli.help((sections) => globalHelp(sections, io.env))

  try {
    // `api list COLLECTION --help` shows that collection's real filters.
    if (argv[0] === 'list' && argv[1] && !argv[1].startsWith('-') && (raw.has('help') || raw.has('h'))) {
      io.stdout(listHelp(schema, argv[1]))
      return EXIT.ok
    }
    // `api create COLLECTION --help` (update, replace) shows the fields that collection takes.
    const [word, spec] = wordsOf(argv)
    if (['create', 'update', 'replace'].includes(word ?? '') && spec && (raw.has('help') || raw.has('h'))) {
      io.stdout(writeHelp(schema, word!, spec, version))
      return EXIT.ok
    }
    // cac prints help and the version with console.info; they belong on this run's stdout.
    const info = console.info
    console.info = (...parts: unknown[]) => io.stdout(`${parts.join(' ')}\n`)
    try {
      // The option parser drops a lone `-`; api import reads standard input for it.
      const args = word === 'import' ? argv.map((arg) => (arg === '-' ? STDIN_FILE : arg)) : argv
      cli.parse(['bun', 'api', ...args], { run: false })
    } finally {
      console.info = info
    }
    if (!cli.matchedCommand) {
      if (cli.options.help) return EXIT.ok
      // `-v` too, as api-server has it, but only alone: in a command it is no option.
      if ((cli.options.version || cli.options.v) && cli.args.length === 0) {
        io.stdout(`api ${VERSION}\n`)
        return EXIT.ok
      }
      if (cli.args[0] === undefined) {
        checkOptions(schema, cli, cli.globalCommand, argv, [])
        throw new UsageError('no command given (see api --help)')
      }
      // An unknown option before the command takes the command for its value (`api --verbos
      // list books`); the option is the typo, not the next word.
      const first = argv.findIndex((arg) => !arg.startsWith('-'))
      checkOptions(schema, cli, cli.globalCommand, first === -1 ? argv : argv.slice(0, first), [])
      throw unknownCommand(cli, String(cli.args[0]))
    }
    checkOptions(schema, cli, cli.matchedCommand, argv, cli.args)
    await cli.runMatchedCommand()
    return status
  } catch (error) {
    report(
      io,
      (error as { name?: string }).name === 'CACError' ? new UsageError((error as Error).message) : error,
    )
    return (error as { name?: string }).name === 'CACError' ? EXIT.usage : exitCodeOf(error)
  }
}

if (import.meta.main) {
  // Ctrl-C ends any command with the shell's status for SIGINT (128 + 2), streams included.
  process.on('SIGINT', () => process.exit(EXIT.interrupted))
  const io = processIo()
  const code = await main(process.argv.slice(2), io)
  process.exit(code)
}
