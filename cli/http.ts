import { connectionFailure } from '../shared/connection-failures.ts'
import type { Session } from './auth/session.ts'
import { TrustError } from './ca-cert.ts'
import { apiErrorFrom, NetworkError } from './errors.ts'
import type { Io } from './io.ts'

interface RequestOptions {
  body?: string
  headers?: Record<string, string>
}

interface ClientOptions {
  timeoutMs: number
  /** Retries after 429, 502, 503, 504 and lost connections (requests safe to repeat only). */
  maxRetries: number
}

const SAFE_TO_REPEAT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'QUERY'])
/** Answers worth another try: the server (or a proxy before it) was busy or could not answer. */
const RETRIED: Record<number, string> = {
  429: 'server busy (429)',
  502: 'bad gateway (502)',
  503: 'server busy (503)',
  504: 'gateway timeout (504)',
}
const MAX_WAIT_MS = 60_000
/** A wait longer than this is always announced on stderr, piped or not. */
const SILENT_WAIT_MS = 2_000

/** RFC 9110 §10.2.3: seconds, or an HTTP date. */
function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000
  const at = Date.parse(header)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/** A date as YYYY-MM-DD; null for what is not one (Date's range ends at ±8.64e15 ms). */
const day = (ms: number) =>
  Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString().slice(0, 10) : null

/**
 * One line saying that an answer is deprecated, from its `Deprecation` (RFC 9745:
 * `@<unix-seconds>`, here with a `version` parameter), `Sunset` (RFC 8594) and
 * `Link: <...>; rel="successor-version"` headers; null when the answer is not deprecated.
 */
function deprecationNotice(headers: Headers): string | null {
  const deprecation = headers.get('deprecation')
  if (deprecation === null) return null
  const seconds = /^@(-?\d{1,15})/.exec(deprecation.trim())?.[1]
  const since = seconds === undefined ? null : day(Number(seconds) * 1000)
  const version = /;\s*version="?([\w.-]{1,20})"?/.exec(deprecation)?.[1]
  const sunset = day(Date.parse(headers.get('sunset') ?? ''))
  // Printable ASCII only: a header must not put control sequences on the user's terminal.
  const successor = /<([\x21-\x3d\x3f-\x7e]{1,2000})>\s*;\s*rel="?successor-version"?/.exec(
    headers.get('link') ?? '',
  )?.[1]
  return [
    `warning: ${version ? `API ${version}` : 'this answer'} is deprecated`,
    since === null ? '' : ` since ${since}`,
    sunset === null ? '' : `, and goes away on ${sunset}`,
    successor ? `; its successor: ${successor}` : '',
  ].join('')
}

/**
 * The CLI's HTTP client: adds the bearer token, renews it once after a 401, retries 429, 502,
 * 503, 504 and lost connections (requests safe to repeat only) with backoff honouring Retry-After, turns error answers into ApiError, and warns once on
 * stderr when the server marks an answer deprecated. It never prints or puts a token in an error
 * message.
 */
export class ApiClient {
  private warned = false

  constructor(
    private readonly io: Io,
    readonly server: string,
    private readonly session: Session | null,
    private readonly options: ClientOptions = { timeoutMs: 30_000, maxRetries: 3 },
  ) {}

  /** The bearer token requests carry (renewed first when it is about to expire). */
  async token(): Promise<string> {
    if (!this.session) throw new Error('this client sends no token')
    return this.session.token()
  }

  /** Sends a request and returns the response, whatever its status. */
  async send(method: string, path: string, init: RequestOptions = {}): Promise<Response> {
    const repeatable = SAFE_TO_REPEAT.has(method) || (init.headers?.['Idempotency-Key'] ?? '') !== ''
    let renewed = false
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { Accept: 'application/json', ...init.headers }
      if (this.session) headers.Authorization = `Bearer ${await this.session.token()}`
      let response: Response
      try {
        response = await this.io.fetch(`${this.server}${path}`, {
          method,
          headers,
          body: init.body,
          signal: AbortSignal.timeout(this.options.timeoutMs),
        })
      } catch (error) {
        const reason =
          (error as Error).name === 'TimeoutError'
            ? `no answer within ${this.options.timeoutMs / 1000} s`
            : connectionFailure(error)
        const failure = `could not reach ${this.server} (${reason})`
        // A certificate that is not trusted now will not be on the next try.
        if (repeatable && attempt < this.options.maxRetries && !(error instanceof TrustError)) {
          await this.wait(failure, this.backoff(attempt))
          continue
        }
        throw new NetworkError(failure)
      }
      if (response.status === 401 && this.session && !renewed) {
        renewed = true
        if (await this.session.renew()) continue
      }
      const busy = RETRIED[response.status]
      if (busy && repeatable && attempt < this.options.maxRetries) {
        const wait = retryAfterMs(response.headers.get('retry-after'), this.io.now()) ?? this.backoff(attempt)
        if (wait <= MAX_WAIT_MS) {
          await response.body?.cancel()
          await this.wait(busy, wait)
          continue
        }
      }
      this.warnIfDeprecated(response)
      return response
    }
  }

  private warnIfDeprecated(response: Response): void {
    if (this.warned) return
    const notice = deprecationNotice(response.headers)
    if (notice === null) return
    this.warned = true
    this.io.stderr(`${notice}\n`)
  }

  /** Sends a request and parses the JSON answer; non-2xx answers throw the server's ApiError. */
  async json<T = unknown>(method: string, path: string, init: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, init)
    return (await parseBody(response)) as T
  }

  /** Waits before a retry, saying so on a terminal, and anywhere when the wait is long. */
  private async wait(reason: string, ms: number): Promise<void> {
    if (this.io.stderrIsTTY || ms > SILENT_WAIT_MS)
      this.io.stderr(`${reason}; retrying in ${Math.max(1, Math.round(ms / 1000))} s\n`)
    await this.io.sleep(ms)
  }

  /**
   * Exponential backoff with 1-249 ms of jitter, so that many clients do not come back at the same
   * instant. Never 0: the third wait (over 2 s) is then always announced, even when piped.
   */
  private backoff(attempt: number): number {
    return Math.min(MAX_WAIT_MS, 500 * 2 ** attempt) + 1 + Math.floor(Math.random() * 249)
  }
}

/** The JSON body of a successful response (null when empty); the server's error otherwise. */
export async function parseBody(response: Response): Promise<unknown> {
  const text = await response.text()
  let body: unknown = null
  if (text) {
    try {
      body = JSON.parse(text)
    } catch {
      if (response.ok) return text
    }
  }
  if (!response.ok) throw apiErrorFrom(response.status, body)
  return body
}
