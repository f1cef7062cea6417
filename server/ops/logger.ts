import { AsyncLocalStorage } from 'node:async_hooks'

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

export type LogFields = Record<string, unknown>

/** One JSON object per line (docs/operations.md, "Logs"). */
export interface Logger {
  readonly level: LogLevel
  enabled: (level: Exclude<LogLevel, 'silent'>) => boolean
  log: (level: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields) => void
  /** An unexpected error: its stack goes to the log, never to the client. */
  error: (error: unknown, fields?: LogFields) => void
}

/** The request a line belongs to, so that errors logged deep inside a handler carry its id. */
const requestContext = new AsyncLocalStorage<{ requestId: string }>()

export function withRequestId<T>(requestId: string, run: () => T): T {
  return requestContext.run({ requestId }, run)
}

/** The id of the request being served (its X-Request-Id); undefined outside one. */
export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId
}

/**
 * Defence in depth: nothing logs a token, but an error message from a library might quote one.
 * JWTs and the service's own prefixed secrets (refresh tokens, codes, client secrets, device
 * codes) are masked in every line.
 */
// No word boundary before the JWT and prefix patterns: a client may glue text in front of a
// secret (`X-Request-Id: x<token>`, a path segment), and the part after the glue is still secret.
const SECRETS: [RegExp, string][] = [
  [/eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]+/g, '[redacted]'],
  [/(rt|ac|cs|dc)_[\w-]{20,}/g, '$1_[redacted]'],
  [/\b(Bearer|Basic) +[\w\-.~+/]{8,}=*/gi, '$1 [redacted]'],
]

function redactSecrets(line: string): string {
  let out = line
  for (const [pattern, replacement] of SECRETS) out = out.replace(pattern, replacement)
  return out
}

function errorFields(error: unknown): LogFields {
  if (error instanceof Error)
    return { error: { name: error.name, message: error.message, stack: error.stack } }
  return { error: { message: String(error) } }
}

/** Lines are written in batches once this many characters wait, or at the end of the current turn. */
const BATCH_CHARS = 64 * 1024

/**
 * Standard output, batched: one write per turn of the event loop instead of one per line. A
 * server under load answers many requests per turn, and a write per access line cost more than
 * the rest of a GET by id (docs/performance.md). Lines are still written in order, within one
 * turn, and whatever waits is written before the process exits.
 */
function batchedStdout(): (line: string) => void {
  let pending = ''
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending === '') return
    const text = pending
    pending = ''
    process.stdout.write(text)
  }
  process.once('exit', flush)
  return (line) => {
    pending += `${line}\n`
    if (pending.length >= BATCH_CHARS) flush()
    else if (!scheduled) {
      scheduled = true
      setImmediate(flush)
    }
  }
}

let stdoutSink: ((line: string) => void) | undefined
const defaultSink = (line: string) => {
  stdoutSink ??= batchedStdout()
  stdoutSink(line)
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = defaultSink,
  clock: () => number = Date.now,
): Logger {
  const enabled = (at: Exclude<LogLevel, 'silent'>) => RANK[at] >= RANK[level]
  const log = (at: Exclude<LogLevel, 'silent'>, msg: string, fields: LogFields = {}) => {
    if (!enabled(at)) return
    const requestId = currentRequestId()
    const line: LogFields = { time: new Date(clock()).toISOString(), level: at, msg }
    if (requestId) line.requestId = requestId
    for (const name in fields) line[name] = fields[name]
    let text: string
    try {
      text = JSON.stringify(line)
    } catch {
      text = JSON.stringify({ time: line.time, level: at, msg, requestId })
    }
    write(redactSecrets(text))
  }
  return {
    level,
    enabled,
    log,
    error: (error, fields = {}) => log('error', 'unexpected error', { ...fields, ...errorFields(error) }),
  }
}

export function parseLogLevel(value: string): LogLevel {
  const level = LOG_LEVELS.find((l) => l === value.toLowerCase())
  if (!level) throw new Error(`--log-level must be one of ${LOG_LEVELS.join(', ')}`)
  return level
}
