/** Error codes of the contract's error body, each with its HTTP status. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  /** A request body that stopped arriving (docs/api.md, "Broken request bodies"). */
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_ERROR: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export interface ErrorDetail {
  field: string
  message: string
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details: ErrorDetail[] }
}

/** What an error carries besides its code and message. */
interface ApiErrorOptions {
  details?: ErrorDetail[]
  /** Response headers the error answers with (`Allow`, `Retry-After`, `WWW-Authenticate`, ...). */
  headers?: Record<string, string>
  /** The failure underneath (a driver's error, a parser's): logged, never sent to the client. */
  cause?: unknown
}

/**
 * The one error type of the product. The server renders it as the contract's error body; the CLI
 * rebuilds it from a response and maps it to an exit code. Build it with the named constructors
 * below rather than `new ApiError(...)`.
 */
export class ApiError extends Error {
  readonly status: number
  readonly details: ErrorDetail[]
  readonly headers: Record<string, string>

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: ApiErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ApiError'
    this.status = ERROR_STATUS[code]
    this.details = options.details ?? []
    this.headers = options.headers ?? {}
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } }
  }
}

/** The details alone, or everything an error carries besides its code and message. */
type Extras = ErrorDetail[] | ApiErrorOptions

const make =
  (code: ErrorCode) =>
  (message: string, extras: Extras = {}): ApiError =>
    new ApiError(code, message, Array.isArray(extras) ? { details: extras } : extras)

/** 400: a query parameter, header or body that cannot be read as the request needs it. */
export const badRequest = make('BAD_REQUEST')
/**
 * 401 with RFC 6750 §3's challenge: none at all without a description (no token, or another
 * scheme), `invalid_token` with it.
 */
export const unauthorized = (description?: string, options: { cause?: unknown } = {}) =>
  new ApiError(
    'UNAUTHORIZED',
    description
      ? `The access token is not valid: ${description}.`
      : 'An access token is required (Authorization: Bearer <token>).',
    {
      headers: {
        'WWW-Authenticate': description
          ? `Bearer realm="api", error="invalid_token", error_description="${description}"`
          : 'Bearer realm="api"',
      },
      cause: options.cause,
    },
  )
/** 403: the caller is known but may not do this (another organization, a role). */
export const forbidden = make('FORBIDDEN')
/** 403 naming the scope the token lacks (RFC 6750 §3.1 `insufficient_scope`). */
export const insufficientScope = (
  scope: string,
  message = `The access token lacks the scope ${scope} (insufficient_scope).`,
  details: ErrorDetail[] = [{ field: 'scope', message: `requires ${scope}` }],
) =>
  new ApiError('FORBIDDEN', message, {
    details,
    headers: { 'WWW-Authenticate': `Bearer realm="api", error="insufficient_scope", scope="${scope}"` },
  })
export const notFound = (message = 'No such resource.') => new ApiError('NOT_FOUND', message)
/**
 * 405 with the methods the resource does take in `Allow` (RFC 9110 §15.5.6). The engine's refusal
 * of a write to a read-only collection knows no routes: it names none, and sends no `Allow`.
 */
export const methodNotAllowed = (
  allow: readonly string[],
  message = `This resource supports ${allow.join(', ')}.`,
) =>
  new ApiError('METHOD_NOT_ALLOWED', message, {
    headers: allow.length > 0 ? { Allow: allow.join(', ') } : {},
  })
export const notAcceptable = make('NOT_ACCEPTABLE')
export const requestTimeout = make('REQUEST_TIMEOUT')
/** 409: the record's state or another record stands in the way. */
export const conflict = make('CONFLICT')
/** 412: a stale `If-Match`. */
export const preconditionFailed = make('PRECONDITION_FAILED')
export const payloadTooLarge = make('PAYLOAD_TOO_LARGE')
export const uriTooLong = make('URI_TOO_LONG')
export const unsupportedMediaType = make('UNSUPPORTED_MEDIA_TYPE')
/** 422 with the contract's message for a body that is not valid, and the details that say where. */
export const validationError = (details: ErrorDetail[], options: { cause?: unknown } = {}) =>
  new ApiError('VALIDATION_ERROR', 'The request body is not valid.', { details, cause: options.cause })
/** 422 with a message of its own and the details that say where. */
export const invalid = make('VALIDATION_ERROR')
export const rateLimitedError = make('RATE_LIMITED')
/** 500: never shows its cause to the client; the cause is logged. */
export const internal = (cause?: unknown) =>
  new ApiError('INTERNAL', 'The server could not complete the request.', { cause })
/** 503 with `Retry-After`: the database or Redis cannot be reached, or the server is starting. */
export const unavailable = (
  message: string,
  options: Omit<ApiErrorOptions, 'headers'> & { retryAfterSeconds?: number } = {},
) =>
  new ApiError('UNAVAILABLE', message, {
    details: options.details,
    headers: { 'Retry-After': String(options.retryAfterSeconds ?? 1) },
    cause: options.cause,
  })
