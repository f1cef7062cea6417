import { existsSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'

/** How the operator runs the two programs, to name them in hints as they would type them. */
interface Invocation {
  /** `api-server` as typed: `npm run -s api-server --`, `dist/api-server`, `api-server`. */
  server: string
  /** The command-line client the same way: `npm run -s api --`, `dist/api`, `api`. */
  cli: string
  /** From a checkout: then `npm run build` makes the executables. */
  fromSource: boolean
}

/** A word as a POSIX shell reads it back. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/**
 * How this process was started. A compiled executable is named by its path relative to the
 * working directory (`dist/api-server`), or by its bare name when it is the one on the PATH; the
 * client is the `api` beside it. Run by Bun from a checkout, both are npm scripts.
 */
export function invocation(
  execPath = process.execPath,
  cwd = process.cwd(),
  which: (name: string) => string | null = Bun.which,
): Invocation {
  const compiled = !/^bun(\.exe)?$/.test(basename(execPath))
  if (!compiled) return { server: 'npm run -s api-server --', cli: 'npm run -s api --', fromSource: true }
  const name = basename(execPath)
  const onPath = which(name) === execPath
  const server = onPath ? name : pathWord(relative(cwd, execPath))
  const sibling = join(dirname(execPath), 'api')
  const cli = onPath || !existsSync(sibling) ? 'api' : pathWord(relative(cwd, sibling))
  return { server, cli, fromSource: false }
}

/** A relative path a shell runs as a program (`./api`, not `api`, for one in this directory). */
function pathWord(path: string): string {
  return shellWord(path.includes('/') ? path : `./${path}`)
}

interface StartState {
  /** The server's URL as clients reach it (`--base-url` when given). */
  url: string
  /** Whether it serves HTTPS itself (`--tls-cert`): then the CLI may need to trust a private CA. */
  servesTls?: boolean
  /** The `--db` value, and whether it is the default one (then the steps need no `--db`). */
  db: string
  defaultDb: boolean
  /**
   * The `--schema` file served, if any: the admin steps name it too, or a client they create would
   * get the built-in example's scopes.
   */
  schema?: string
  /** Whether the database holds an organization yet. */
  hasOrg: boolean
  /** `--production`: no GraphiQL at /graphql. */
  production?: boolean
  /** The web console at /console (on unless `--no-console`). */
  console?: boolean
}

/** Where a person with a browser goes: the console, the API reference, and GraphQL (GraphiQL but in production). */
function browseLine(state: StartState): string {
  return state.production
    ? `${state.console ? `Console: ${state.url}/console  ` : ''}API reference: ${state.url}/docs  GraphQL: ${state.url}/graphql (no GraphiQL with --production)`
    : `In a browser: ${state.console ? `${state.url}/console (console), ` : ''}${state.url}/docs (API reference), ${state.url}/graphql (GraphiQL)`
}

/**
 * The lines `serve` prints for people once listening: the pages to open in a browser, how to log
 * in, and on a database with no organization the admin steps that make one, a user and a client
 * first.
 */
export function startHint(run: Invocation, state: StartState): string[] {
  return [browseLine(state), ...nextSteps(run, state)]
}

function nextSteps(run: Invocation, state: StartState): string[] {
  const apiUrl = state.url === 'http://127.0.0.1:8080' ? '' : `API_URL=${state.url} `
  const login = run.fromSource
    ? `${apiUrl}${run.cli} login   (or ${apiUrl}dist/api login after npm run build)`
    : `${apiUrl}${run.cli} login`
  const trust = state.servesTls
    ? [
        `If the certificate is from a private CA, give the CLI its certificate: ${apiUrl}API_CA_CERT=ca.pem ${run.cli} login`,
      ]
    : []
  if (state.hasOrg) return [`Next, in another terminal: ${login}`, ...trust]
  if (state.db === ':memory:') {
    return [
      'The database (:memory:) has no organization, and admin commands cannot reach a database in memory:',
      `restart with --demo for the demo data, or with --db FILE and create one with ${run.server} org create.`,
    ]
  }
  const db = state.defaultDb ? '' : ` --db ${shellWord(state.db)}`
  const schema = state.schema === undefined ? '' : ` --schema ${shellWord(state.schema)}`
  const admin = `${run.server}${db}${schema}`
  return [
    `The database has no organization yet. In another terminal, create one, a user who can log in and a client for a service (or load demo data: ${admin} seed):`,
    `  ${admin} org create --name Acme`,
    `  ${admin} user create --org Acme --email you@example.com --name 'Your Name' --role admin --password 'a long passphrase'`,
    `  ${admin} client create --name my-service --org Acme`,
    `Then log in: ${login}`,
    ...trust,
  ]
}
