import { ApiError, unavailable } from '../../shared/errors.ts'

/**
 * What a store tells about its database going away and coming back: `serve` logs each once
 * (docs/operations.md, "When the database goes away"), not once per request or job run.
 */
export interface OutageReport {
  /** The database stopped answering; `cause` is the first failure that said so. */
  lost(cause: unknown): void
  /** The first statement that started after the outage began has succeeded. */
  back(unavailableMs: number): void
}

/** Not a word of the driver's: the client learns what it may do, the log gets the cause. */
export const DATABASE_UNAVAILABLE =
  'The database cannot be reached, so this request was not acknowledged. Retry it: a write retried ' +
  'with the same Idempotency-Key is performed at most once.'

/** A database restart takes seconds; a client with backoff retries soon, then less often. */
const RETRY_AFTER_S = 1

/** The 503 of a request that failed because the database cannot be reached; `cause` goes to the log only. */
function databaseUnavailable(cause: unknown): ApiError {
  return unavailable(DATABASE_UNAVAILABLE, { retryAfterSeconds: RETRY_AFTER_S, cause })
}

/** True for the error a store throws while its database cannot be reached. */
export function isDatabaseUnavailable(error: unknown): error is ApiError {
  return error instanceof ApiError && error.code === 'UNAVAILABLE'
}

/** The failure as the outage's log line names it: the driver's code and words, never SQL or a stack. */
export function describeFailure(cause: unknown): { name?: string; code?: string; message: string } {
  if (!(cause instanceof Error)) return { message: String(cause) }
  const { errno, code } = cause as { errno?: unknown; code?: unknown }
  // PostgreSQL's SQLSTATE (errno) says more than Bun's code for a server's error.
  const named = typeof errno === 'string' ? errno : typeof code === 'string' ? code : undefined
  return { name: cause.name, ...(named === undefined ? {} : { code: named }), message: cause.message }
}

/**
 * Watches one database's statements. A backend asks `watch()` as a statement starts and tells
 * `answered(watch)` or `failed(error, watch)` as it ends. A failure that says the database cannot
 * be reached reports the outage, a success its end; each only for a statement that started since
 * the last change, so that one which was already running when the connection went (or came back)
 * cannot report the outage over again. Failures of other kinds pass as they are.
 */
export class Availability {
  private down = false
  private since = 0
  /** Moves when an outage begins and when it ends: a statement knows whether it started since. */
  private generation = 0

  constructor(
    private readonly unreachable: (error: unknown) => boolean,
    private readonly report: OutageReport = { lost: () => {}, back: () => {} },
  ) {}

  watch(): number {
    return this.generation
  }

  answered(watch: number): void {
    if (!this.down || watch !== this.generation) return
    this.down = false
    this.generation++
    this.report.back(Date.now() - this.since)
  }

  /** The error to throw for a failed statement: the 503 when the database cannot be reached. */
  failed(error: unknown, watch: number): unknown {
    if (isDatabaseUnavailable(error) || !this.unreachable(error)) return error
    if (!this.down && watch === this.generation) {
      this.down = true
      this.since = Date.now()
      this.generation++
      this.report.lost(error)
    }
    return databaseUnavailable(error)
  }
}
