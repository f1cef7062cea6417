/**
 * Runs the `api` CLI the two ways its tests need: in-process through `main(argv, io)` with a fake
 * terminal, clock and browser (but the real `fetch`), and as a subprocess of Bun. Every run checks
 * that no token or client secret reached stdout or stderr.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { credentialsPath } from '../../cli/config.ts'
import type { Io } from '../../cli/io.ts'
import { main } from '../../cli/main.ts'
import { exampleDocument } from './example-document.ts'

export const ROOT = resolve(import.meta.dir, '../..')
export const BUN = join(ROOT, 'node_modules/.bin/bun')
export const CLI = join(ROOT, 'cli/main.ts')

const secrets = new Set<string>()

/** Remembers values that no output of any run may contain. */
export function secret(...values: (string | undefined)[]): void {
  for (const value of values) if (value) secrets.add(value)
}

const dirs: string[] = []

export function tempDir(prefix = 'api-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
}

/** The credentials file of a config home, parsed (null when there is none). */
export function storedFile(configHome: string): { servers: Record<string, Record<string, unknown>> } | null {
  try {
    return JSON.parse(readFileSync(credentialsPath({ XDG_CONFIG_HOME: configHome }), 'utf8'))
  } catch {
    return null
  }
}

/** Fails when the text contains a remembered secret, an env secret or a token stored in the config home. */
export function expectNoSecrets(text: string, env: Record<string, string | undefined> = {}): void {
  const stored = env.XDG_CONFIG_HOME ? storedFile(env.XDG_CONFIG_HOME) : null
  const candidates = [...secrets, env.API_TOKEN, env.API_CLIENT_SECRET]
  for (const login of Object.values(stored?.servers ?? {})) {
    candidates.push(login.accessToken as string, login.refreshToken as string, login.clientSecret as string)
  }
  for (const value of candidates) {
    // The value itself is not repeated in the failure: the message would leak it too.
    if (value && value.length >= 8 && text.includes(value))
      throw new Error(`the output contains a secret (${value.slice(0, 4)}…)`)
  }
}

export interface RecordedRequest {
  method: string
  url: URL
  headers: Headers
  body: string | undefined
}

/**
 * A fetch that records every request, then hands it to `next` (the real fetch by default). The
 * OpenAPI document the CLI learns the collections from (cli/learn/) is not recorded: `requests`
 * are the command's own; test/cli/discovery.test.ts covers the learning.
 */
function recordingFetch(
  requests: RecordedRequest[],
  next: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> = fetch,
): typeof fetch {
  return (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    if (new URL(String(input)).pathname.endsWith('/openapi.json')) return next(input, init)
    const body = typeof init.body === 'string' ? init.body : undefined
    requests.push({
      method: init.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init.headers),
      body,
    })
    return next(input, init)
  }) as typeof fetch
}

export interface RunOptions {
  env: Record<string, string | undefined>
  /** Sets stdout, stderr and stdin as terminals at once; the three flags below override it. */
  tty?: boolean
  stdoutIsTTY?: boolean
  stderrIsTTY?: boolean
  stdinIsTTY?: boolean
  stdin?: string
  /** The terminal's width (what `COLUMNS` or the terminal would say); none by default. */
  columns?: number
  /** The answer to confirmation questions. */
  answer?: boolean
  /** Called in place of the real fetch (after recording), with the run so far (its output). */
  fetch?: (input: RequestInfo | URL, init: RequestInit | undefined, run: CliResult) => Promise<Response>
  now?: () => number
  /** Called after the wait is recorded (by default a wait returns at once), with the run so far. */
  sleep?: (ms: number, run: CliResult) => Promise<void>
  openBrowser?: (url: string) => Promise<boolean>
  /** Resolves when the user presses Ctrl-C; never by default. */
  interrupted?: Promise<void>
}

export interface CliResult {
  code: number
  stdout: string
  stderr: string
  requests: RecordedRequest[]
  sleeps: number[]
  opened: string[]
  questions: string[]
}

/** Runs `api ...argv` in this process with a fake terminal. */
export async function runCli(argv: string[], options: RunOptions): Promise<CliResult> {
  const result: CliResult = {
    code: -1,
    stdout: '',
    stderr: '',
    requests: [],
    sleeps: [],
    opened: [],
    questions: [],
  }
  const tty = options.tty ?? false
  const io: Io = {
    stdout: (text) => {
      result.stdout += text
    },
    stderr: (text) => {
      result.stderr += text
    },
    readStdin: async () => options.stdin ?? '',
    env: options.env,
    stdoutIsTTY: options.stdoutIsTTY ?? tty,
    stderrIsTTY: options.stderrIsTTY ?? tty,
    stdinIsTTY: options.stdinIsTTY ?? tty,
    columns: options.columns,
    confirm: async (question) => {
      result.questions.push(question)
      return options.answer ?? false
    },
    fetch: recordingFetch(result.requests, (input, init) => {
      // A stand-in for the server answers the command's requests; the document it learns from
      // is the built-in example's, as a server without a schema file would answer it.
      const document = options.fetch && exampleDocument(new Request(String(input), init))
      if (document) return Promise.resolve(document)
      return options.fetch ? options.fetch(input, init, result) : fetch(input, init)
    }),
    now: options.now ?? Date.now,
    sleep: async (ms) => {
      result.sleeps.push(ms)
      if (options.sleep) await options.sleep(ms, result)
    },
    openBrowser: async (url) => {
      result.opened.push(url)
      return options.openBrowser ? options.openBrowser(url) : false
    },
    interrupted: options.interrupted ?? new Promise(() => {}),
  }
  result.code = await main(argv, io)
  expectNoSecrets(result.stdout + result.stderr, options.env)
  return result
}

/** Runs `bun cli/main.ts ...argv` with only the given environment (plus PATH and a HOME). */
export async function spawnCli(
  argv: string[],
  env: Record<string, string | undefined>,
  stdin?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn([BUN, CLI, ...argv], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: env.XDG_CONFIG_HOME ?? tmpdir(), ...env },
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  expectNoSecrets(stdout + stderr, env)
  return { code, stdout, stderr }
}

/** jq, for the pipelines users write (`api ... | jq length`); .ci/run installs it. */
export const JQ = '/usr/bin/jq'
/** Whether jq is here; in CI (`CI` set) a missing one fails the tests that need it rather than skipping them. */
export const jqAvailable = existsSync(JQ) || process.env.CI !== undefined

/** Runs `bun cli/main.ts ...argv | jq FILTER` in bash with pipefail, as a user's script does. */
export async function spawnCliIntoJq(
  argv: string[],
  filter: string,
  env: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = `${[BUN, CLI, ...argv].map(shellQuote).join(' ')} | ${JQ} ${shellQuote(filter)}`
  const child = Bun.spawn(['bash', '-o', 'pipefail', '-c', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: env.XDG_CONFIG_HOME ?? tmpdir(), ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  expectNoSecrets(stdout + stderr, env)
  return { code, stdout, stderr }
}

/** util-linux `script`, which runs a command on a pseudo-terminal. */
const SCRIPT = '/usr/bin/script'
export const terminalAvailable = existsSync(SCRIPT)

const shellQuote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`

/**
 * Runs `bun cli/main.ts ...argv` on a pseudo-terminal, as a person at a terminal would: stdout,
 * stderr and stdin are all the terminal, so the output is both streams as they were shown
 * (line ends as `\n`).
 */
export async function spawnCliOnTerminal(
  argv: string[],
  env: Record<string, string | undefined>,
  typed?: string,
): Promise<{ code: number; output: string }> {
  const command = [BUN, CLI, ...argv].map(shellQuote).join(' ')
  const child = Bun.spawn([SCRIPT, '--quiet', '--return', '--command', command, '/dev/null'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: env.XDG_CONFIG_HOME ?? tmpdir(), TERM: 'dumb', ...env },
    // What the person types at the terminal (an answer to a question), else nothing.
    stdin: typed === undefined ? 'ignore' : new TextEncoder().encode(typed),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [output, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
  expectNoSecrets(output, env)
  return { code, output: output.replace(/\r\n/g, '\n') }
}
