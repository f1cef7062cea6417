#!/usr/bin/env bun
import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { type Command, cac } from 'cac'
import { acceptedOptions, unknownOption } from '../shared/option-typos.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import { schemaFromDeclaration } from '../shared/schema/declaration.ts'
import type { Schema } from '../shared/schema/schema.ts'
import { PRODUCT_VERSION } from '../shared/version.ts'
import { registerAccountCommands } from './admin/account-commands.ts'
import { list, optionalText, UsageError } from './admin/arguments.ts'
import { actionsSection, commandFirst, unknownAction } from './admin/command-line.ts'
import { checkedDeclaration, registerSchemaCommands, SchemaFileError } from './admin/schema-commands.ts'
import { seed } from './admin/seed.ts'
import { invocation, startHint } from './admin/start-hint.ts'
import { rotateKey } from './auth/keys.ts'
import { parseCorsOrigins } from './http/cors.ts'
import { DEFAULT_RATE_LIMIT } from './http/rate-limit.ts'
import { DEFAULT_CACHE_MB } from './http/response-cache.ts'
import { isLoopback, plainHttpRefusal, type TlsFiles } from './http/tls.ts'
import { IdpFileError, readIdpFile } from './idp/config.ts'
import { LOG_LEVELS, parseLogLevel } from './ops/logger.ts'
import { schemaVersionAt } from './schema/apply.ts'
import { serve } from './serve.ts'
import { describeLocation, isPostgresUrl, openStore } from './store/open.ts'
import type { Store } from './store/store.ts'
import { DURABILITIES, type Durability } from './store/types.ts'
import { WEBHOOK_DEFAULTS, type WebhookOptions } from './webhooks/worker.ts'

const DEFAULT_DB = './data/api.db'

const isDurability = (value: string): value is Durability =>
  (DURABILITIES as readonly string[]).includes(value)

interface Io {
  out: (line: string) => void
  err: (line: string) => void
  env: Record<string, string | undefined>
  /** All of standard input (`--password-stdin`). */
  stdin: () => Promise<string>
}

const TIMINGS = ['scheduleMs', 'attemptTimeoutMs', 'leaseMs', 'pollMs', 'disableAfterMs'] as const

/**
 * `API_WEBHOOK_TIMINGS`, for tests and staging (docs/operations.md): JSON overriding the webhook
 * worker's retry schedule and timings, `{"scheduleMs": [1000, 2000], "leaseMs": 3000, ...}`.
 */
function webhookTimings(text: string | undefined): Partial<WebhookOptions> {
  if (text === undefined || text === '') return {}
  const bad = () =>
    new UsageError(
      `API_WEBHOOK_TIMINGS must be a JSON object of ${TIMINGS.join(', ')} in milliseconds (scheduleMs a list)`,
    )
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw bad()
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad()
  const ms = (value: unknown) => Number.isInteger(value) && (value as number) >= 0
  for (const [key, value] of Object.entries(parsed)) {
    if (!TIMINGS.includes(key as (typeof TIMINGS)[number])) throw bad()
    if (key === 'scheduleMs' ? !(Array.isArray(value) && value.every(ms)) : !ms(value)) throw bad()
  }
  const timings = parsed as Partial<WebhookOptions>
  const lease = timings.leaseMs ?? WEBHOOK_DEFAULTS.leaseMs
  const attempt = timings.attemptTimeoutMs ?? WEBHOOK_DEFAULTS.attemptTimeoutMs
  // An attempt that outlived its lease could be made again by another instance at the same time.
  if (attempt >= lease)
    throw new UsageError(
      `API_WEBHOOK_TIMINGS: attemptTimeoutMs (${attempt}) must be shorter than leaseMs (${lease})`,
    )
  return timings
}

/**
 * The database path to use. Only the default directory (`./data`) is created on demand: a `--db`
 * in a directory that does not exist is a mistake to report (opening it names it), not a new
 * empty database to start.
 */
function databasePath(path: string): string {
  if (path !== ':memory:' && resolve(dirname(path)) === resolve(dirname(DEFAULT_DB)))
    mkdirSync(dirname(path), { recursive: true })
  return path
}

/**
 * Opens and migrates the store for one admin command, and closes it when `run` is done. Never in
 * memory: that would be a new database of the command's own, gone when it ends (serve may use one).
 */
async function withStore<T>(path: string, schema: Schema, run: (store: Store) => T | Promise<T>): Promise<T> {
  if (path === ':memory:')
    throw new UsageError(
      "--db :memory: would be a new database that vanishes when this command ends; give the server's database file or postgres:// URL",
    )
  const store = openStore(path, schema)
  try {
    await store.migrate()
    return await run(store)
  } finally {
    await store.close()
  }
}

/**
 * How `serve` keeps bearer tokens off the network in clear text (docs/operations.md, "HTTPS"):
 * its own TLS, a proxy in front, or the operator's explicit `--insecure-http`.
 */
function transportOf(options: Record<string, unknown>, env: Io['env'], argv: string[]) {
  const certFile = optionalText(options, 'tls-cert', argv) ?? env.API_TLS_CERT
  const keyFile = optionalText(options, 'tls-key', argv) ?? env.API_TLS_KEY
  if ((certFile === undefined) !== (keyFile === undefined))
    throw new UsageError('--tls-cert and --tls-key go together (env API_TLS_CERT, API_TLS_KEY)')
  const tls: TlsFiles | undefined = certFile && keyFile ? { certFile, keyFile } : undefined
  return { tls, trustProxy: Boolean(options.trustProxy), insecureHttp: Boolean(options.insecureHttp) }
}

/** Runs one `api-server` command; returns the exit status. */
export async function main(argv: string[], io: Io): Promise<number> {
  const cli = cac('api-server')
  // The resources served and kept: `--schema FILE`/`API_SCHEMA`, or the built-in example. Read once,
  // before the command runs, so a bad file stops it before anything is touched.
  let given: Schema | undefined
  let schemaFile: string | undefined
  const schema = (): Schema => {
    given ??= exampleSchema()
    return given
  }
  const withSchemaStore = <T>(path: string, run: (store: Store) => T | Promise<T>) =>
    withStore(path, schema(), run)
  const print = (json: boolean, value: Record<string, unknown>, text: string) =>
    io.out(json ? JSON.stringify(value) : text)
  const dbOf = (options: Record<string, unknown>) =>
    databasePath(optionalText(options, 'db', argv) ?? io.env.API_DB ?? DEFAULT_DB)
  let status = 0

  cli.option(
    '--db <path>',
    `SQLite database file or a postgres:// URL; serve also takes :memory: (env API_DB, default ${DEFAULT_DB})`,
  )
  cli.option('--json', 'Print the result as one JSON object')
  cli.option(
    '--schema <file>',
    'Schema file of the collections served (JSON, or YAML by extension; env API_SCHEMA; default the built-in example)',
  )

  const serveCommand = cli
    .command('serve', 'Run the service (the default command)')
    .option('--host <host>', 'Address to listen on (env HOST, default 127.0.0.1)')
    .option('--port <port>', 'Port (env PORT, default 8080; 0 picks a free one)')
    .option(
      '--base-url <url>',
      'Public origin, the OAuth issuer (env API_BASE_URL, default http://HOST:PORT, https with TLS)',
    )
    .option('--tls-cert <file>', 'PEM certificate (chain) to serve HTTPS with (env API_TLS_CERT)')
    .option('--tls-key <file>', 'PEM private key of --tls-cert (env API_TLS_KEY)')
    .option(
      '--trust-proxy',
      'Behind a proxy that terminates TLS: client address and scheme from X-Forwarded-For and X-Forwarded-Proto',
    )
    .option('--insecure-http', 'Allow plain HTTP on an address other than loopback (tokens in clear text)')
    .option(
      '--redis <url>',
      'redis:// URL: rate limits counted in Redis, shared by every replica (env API_REDIS_URL; default in memory)',
    )
    .option(
      '--db-listen <url>',
      'Direct postgres:// URL for change notifications (LISTEN) when --db goes through a pooler in transaction mode (env API_DB_LISTEN)',
    )
    .option('--demo', 'Load the demo data first when the database has none')
    .option('--production', 'No GraphQL introspection or field suggestions')
    .option('--no-console', 'No web console: every /console path answers 404 (env API_CONSOLE=off)')
    .option(
      '--cors-origin <origin>',
      'Origin allowed to call the API from a browser, repeatable (env API_CORS_ORIGINS, comma-separated; default none)',
    )
    .option(
      '--rate-limit <n>',
      `Requests a minute per client and user (whatever their token), or per address without one; 0 turns limits off (env API_RATE_LIMIT, default ${DEFAULT_RATE_LIMIT})`,
    )
    .option('--log-level <level>', `${LOG_LEVELS.join(', ')} (env API_LOG_LEVEL, default info)`)
    .option(
      '--cache-mb <n>',
      `MiB of record reads' answers kept in memory, dropped when their organization changes (env API_CACHE_MB, default ${DEFAULT_CACHE_MB})`,
    )
    .option('--no-cache', 'Answer every read from the database (the same as --cache-mb 0)')
    .option(
      '--metrics-token <token>',
      'Bearer token that may read /metrics from any address; loopback needs none (env API_METRICS_TOKEN, default none)',
    )
    .option(
      '--idp <file>',
      'Outside identity providers to sign in with (JSON, or YAML by extension; env API_IDP; default none)',
    )
    .option(
      '--durability <mode>',
      'full: every acknowledged write survives power loss; fast: one sync per checkpoint, the last commits may be lost on power loss (env API_DURABILITY, default full)',
    )
    .option(
      '--allow-http-webhooks',
      'Webhook URLs may be http (or https) to loopback addresses, for development (env API_ALLOW_HTTP_WEBHOOKS=1)',
    )
    .action(async (options) => {
      const port = Number(options.port ?? io.env.PORT ?? 8080)
      const webhooks = {
        ...webhookTimings(io.env.API_WEBHOOK_TIMINGS),
        allowHttp: Boolean(options.allowHttpWebhooks) || io.env.API_ALLOW_HTTP_WEBHOOKS === '1',
      }
      const rateLimit = Number(options.rateLimit ?? io.env.API_RATE_LIMIT ?? DEFAULT_RATE_LIMIT)
      if (!Number.isInteger(rateLimit) || rateLimit < 0)
        throw new UsageError('--rate-limit must be a whole number of requests a minute (0: no limit)')
      let logLevel: ReturnType<typeof parseLogLevel>
      try {
        logLevel = parseLogLevel(String(options.logLevel ?? io.env.API_LOG_LEVEL ?? 'info'))
      } catch (error) {
        throw new UsageError((error as Error).message)
      }
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port must be 0..65535')
      const cacheMb =
        options.cache === false ? 0 : Number(options.cacheMb ?? io.env.API_CACHE_MB ?? DEFAULT_CACHE_MB)
      if (!Number.isFinite(cacheMb) || cacheMb < 0)
        throw new UsageError('--cache-mb must be a number of MiB (0: no response cache)')
      const durability = String(options.durability ?? io.env.API_DURABILITY ?? 'full')
      if (!isDurability(durability)) throw new UsageError(`--durability must be ${DURABILITIES.join(' or ')}`)
      let corsOrigins: string[]
      try {
        const given =
          options.corsOrigin !== undefined ? list(options.corsOrigin) : list(io.env.API_CORS_ORIGINS)
        corsOrigins = parseCorsOrigins(given)
      } catch (error) {
        throw new UsageError((error as Error).message)
      }
      const redis = optionalText(options, 'redis', argv) ?? io.env.API_REDIS_URL
      if (redis !== undefined && !/^rediss?:\/\//.test(redis))
        throw new UsageError('--redis must be a redis:// or rediss:// URL (env API_REDIS_URL)')
      if (redis === undefined && isPostgresUrl(dbOf(options)) && rateLimit > 0)
        io.err(
          'warning: without --redis every replica counts rate limits on its own (a client may send the limit to each)',
        )
      const metricsToken = optionalText(options, 'metrics-token', argv) ?? io.env.API_METRICS_TOKEN
      // Sent as a bearer token (RFC 6750's token68 characters); a short one would be guessed.
      if (metricsToken !== undefined && !/^[A-Za-z0-9\-._~+/]{16,}=*$/.test(metricsToken))
        throw new UsageError(
          '--metrics-token must be at least 16 letters, digits or -._~+/ (env API_METRICS_TOKEN; openssl rand -hex 32 makes one)',
        )
      const idpFile = optionalText(options, 'idp', argv) ?? (io.env.API_IDP || undefined)
      // Read and checked before anything starts: a bad file is exit 2, one line per problem.
      const idp = idpFile !== undefined ? { file: idpFile, config: readIdpFile(idpFile) } : undefined
      const dbListen = optionalText(options, 'db-listen', argv) ?? io.env.API_DB_LISTEN
      if (dbListen !== undefined && !(isPostgresUrl(dbListen) && isPostgresUrl(dbOf(options))))
        throw new UsageError(
          '--db-listen must be a postgres:// URL, given with a postgres:// --db (env API_DB_LISTEN)',
        )
      const host = String(options.host ?? io.env.HOST ?? '127.0.0.1')
      const transport = transportOf(options, io.env, argv)
      const refusal = plainHttpRefusal(host, { ...transport, tls: transport.tls !== undefined })
      if (refusal) throw new UsageError(refusal)
      const baseUrl = options.baseUrl ?? io.env.API_BASE_URL
      // Standard output carries the JSON log only; lines for people go to standard error.
      if (transport.insecureHttp && !transport.tls && !isLoopback(host))
        io.err(
          `warning: plain HTTP on ${host} (--insecure-http): bearer tokens cross the network in clear text`,
        )
      if (transport.trustProxy && baseUrl === undefined)
        io.err(
          'warning: --trust-proxy without --base-url: the OAuth issuer is this address, not the public one',
        )
      const db = dbOf(options)
      // Signals are caught before the port opens: one that comes right after start stops cleanly.
      const signalled = Promise.withResolvers<void>()
      const onSignal = () => signalled.resolve()
      process.once('SIGTERM', onSignal)
      process.once('SIGINT', onSignal)
      const withConsole = options.console !== false && io.env.API_CONSOLE !== 'off'
      const server = await serve({
        host,
        port,
        db,
        dbListen,
        schema: schema(),
        baseUrl,
        tls: transport.tls,
        trustProxy: transport.trustProxy,
        production: Boolean(options.production),
        console: withConsole,
        corsOrigins,
        rateLimit,
        redis,
        logLevel,
        durability,
        webhooks,
        cacheMb,
        metricsToken,
        idp,
        out: io.err,
        // On the server's own connection: a second one to :memory: would be another database.
        prepare: options.demo ? (store) => seedAndPrint(store, false, io.err) : undefined,
      }).catch((error) => {
        process.off('SIGTERM', onSignal)
        process.off('SIGINT', onSignal)
        throw error
      })
      const state = {
        // Where clients reach it: the public origin when one is given (a replica behind a proxy).
        url: server.baseUrl,
        servesTls: transport.tls !== undefined,
        // A PostgreSQL URL is shown without its password: the hint names where, not how to log in.
        db: describeLocation(db),
        defaultDb: db === DEFAULT_DB,
        schema: schemaFile,
        hasOrg: await server.hasOrganization(),
        production: Boolean(options.production),
        console: withConsole,
      }
      for (const line of startHint(invocation(), state)) io.err(line)
      await signalled.promise
      await server.stop()
    })

  // cac gives `--no-cache` the default true, and its help would read "--no-cache (default: true)".
  // Without one, `cache` is false with the flag and unset without it, which is all serve asks.
  for (const option of serveCommand.options) if (option.negated) option.config.default = undefined

  cli.command('migrate', 'Apply pending migrations and exit').action(async (options) => {
    const db = dbOf(options)
    const version = await withSchemaStore(db, (store) => store.migrate())
    // `version` stays the service's migrations, as scripts read it; the schema file's is beside it.
    const recorded = await schemaVersionAt(db)
    const schemaVersion = recorded?.version ?? 0
    const schemaHash = recorded?.hash ?? ''
    print(
      options.json,
      { version, schemaVersion, schemaHash },
      `database at service version ${version}; schema version ${schemaVersion} (sha256 ${schemaHash.slice(0, 12)}…)`,
    )
  })

  const seedAndPrint = async (store: Store, json: boolean, say: (line: string) => void) => {
    const result = await seed(store)
    if (json) return say(JSON.stringify(result))
    say(result.created ? 'Loaded the demo data.' : 'The demo data is already there.')
    if (!result.records)
      say(
        'The demo records belong to the built-in example: this schema gets the organizations and users only.',
      )
    for (const org of result.orgs) say(`organization ${org.name}: ${org.id}`)
    for (const u of result.users)
      say(`  ${u.org.padEnd(7)} ${u.role.padEnd(7)} ${u.email}  password: ${u.password}`)
  }
  cli
    .command('seed', 'Load demo data and print the demo logins')
    .action((options) => withSchemaStore(dbOf(options), (store) => seedAndPrint(store, options.json, io.out)))

  registerAccountCommands(cli, { argv, io, dbOf, withStore: withSchemaStore, schema, print })
  registerSchemaCommands(cli, { io, schema, dbOf })

  cli.command('keys <action>', 'Signing keys: keys rotate').action(async (action, options) => {
    if (action !== 'rotate') throw new UsageError(unknownAction('keys', action))
    const kid = await withSchemaStore(dbOf(options), rotateKey)
    print(
      options.json,
      { kid },
      `new signing key ${kid}; older keys stay published until their tokens expire`,
    )
  })

  cli
    .command('backup <file>', 'Write a consistent copy of the live database to FILE')
    .action(async (file, options) => {
      await withSchemaStore(dbOf(options), (store) => store.backup(String(file)))
      print(options.json, { file }, `backup written to ${file}`)
    })

  // `org --help` and the like list their actions, which cac has no place for.
  cli.help((sections) => {
    const actions = actionsSection(cli.matchedCommandName)
    if (actions) sections.splice(2, 0, actions)
    return sections
  })
  cli.version(PRODUCT_VERSION)
  cli.globalCommand.outputVersion = () => io.out(`api-server ${PRODUCT_VERSION}`)

  /** Names an unknown option as typed, with the one it may have meant, as `api` does. */
  const checkOptions = (command: Command, given: string[]) => {
    const typo = unknownOption(given, acceptedOptions(cli, command))
    if (typo === undefined) return
    const hint = typo.hint ? ` (did you mean ${typo.hint}?)` : ''
    throw new UsageError(
      `unknown option ${typo.typed} for api-server ${command.name}${hint}; see: api-server ${command.name} --help`,
    )
  }

  // Flags that take a value, so that `--db X migrate` finds the command after X.
  const valued = new Set(
    [cli.globalCommand, ...cli.commands]
      .flatMap((command) => command.options)
      .filter((option) => option.required !== undefined)
      .flatMap((option) => option.rawName.match(/--?[\w-]+/g) ?? []),
  )
  const args = commandFirst(argv, (flag) => valued.has(flag))
  // cac prints help with console.info; it belongs on this run's standard output.
  const info = console.info
  console.info = (...parts: unknown[]) => io.out(parts.join(' '))
  try {
    cli.parse(['bun', 'api-server', ...args], { run: false })
    console.info = info
    if (!cli.matchedCommand && !cli.options.help && !cli.options.version) {
      // An unknown flag before the command took it for its value (`--prot 1`): the flag is the typo.
      checkOptions(serveCommand, argv.slice(0, argv.indexOf(args[0]!)))
      throw new UsageError(`unknown command "${args[0]}" (see api-server --help)`)
    }
    if (cli.matchedCommand && !cli.options.help) checkOptions(cli.matchedCommand, args)
    const file = optionalText(cli.options, 'schema', args) ?? (io.env.API_SCHEMA || undefined)
    // `init` and the JSON Schema need no schema in force; every other command reads it first.
    const command = cli.matchedCommandName
    const needsSchema = command !== 'init' && (command !== 'schema' || cli.args[0] !== 'json-schema')
    if (file !== undefined && needsSchema && !cli.options.help) {
      given = schemaFromDeclaration(checkedDeclaration(file))
      schemaFile = file
    }
    await cli.runMatchedCommand()
  } catch (error) {
    console.info = info
    const message = error instanceof Error ? error.message : String(error)
    if (error instanceof SchemaFileError || error instanceof IdpFileError) {
      for (const problem of error.problems) io.err(`${error.file}: ${problem}`)
      return 2
    }
    io.err(`api-server: ${message}`)
    const name = (error as { name?: string })?.name
    // 2 when the command line itself is wrong; 1 for the rest (a name taken, a file SQLite cannot use).
    status = error instanceof UsageError || name === 'CACError' || name === 'AdminInputError' ? 2 : 1
  }
  return status
}

if (import.meta.main) {
  const status = await main(process.argv.slice(2), {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    env: process.env,
    stdin: () => Bun.stdin.text(),
  })
  process.exit(status)
}
