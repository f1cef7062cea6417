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
export interface ApiErrorOptions {
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

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = 'ApiError'
    this.status = ERROR_STATUS[code]
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } }
  }
}

const make =
  (code: ErrorCode) =>
  (message: string, options: ApiErrorOptions = {}): ApiError =>
    new ApiError(code, message, options.details ?? [], options.headers ?? {}, { cause: options.cause })

/** 400: a query parameter, header or body that cannot be read as the request needs it. */
export const badRequest = (message: string, details: ErrorDetail[] = []) =>
  new ApiError('BAD_REQUEST', message, details)
/** 401: no credentials, or credentials that are not valid. */
export const unauthorized = make('UNAUTHORIZED')
/** 403: the caller is known but may not do this (another organization, a role). */
export const forbidden = make('FORBIDDEN')
/** 403 naming the scope the token lacks (RFC 6750 §3.1 `insufficient_scope`). */
export const insufficientScope = (scope: string) =>
  new ApiError(
    'FORBIDDEN',
    `The access token lacks the scope ${scope} (insufficient_scope).`,
    [{ field: 'scope', message: `requires ${scope}` }],
    { 'WWW-Authenticate': `Bearer realm="api", error="insufficient_scope", scope="${scope}"` },
  )
export const notFound = (message = 'No such resource.') => new ApiError('NOT_FOUND', message)
/** 405 with the methods the resource does take in `Allow`. */
export const methodNotAllowed = (
  allow: readonly string[],
  message = `This resource supports ${allow.join(', ')}.`,
) => new ApiError('METHOD_NOT_ALLOWED', message, [], { Allow: allow.join(', ') })
export const notAcceptable = make('NOT_ACCEPTABLE')
export const requestTimeout = make('REQUEST_TIMEOUT')
/** 409: the record's state or another record stands in the way. */
export const conflict = make('CONFLICT')
/** 412: a stale `If-Match`. */
export const preconditionFailed = make('PRECONDITION_FAILED')
export const payloadTooLarge = make('PAYLOAD_TOO_LARGE')
export const uriTooLong = make('URI_TOO_LONG')
export const unsupportedMediaType = make('UNSUPPORTED_MEDIA_TYPE')
export const validationError = (details: ErrorDetail[], message = 'The request body is not valid.') =>
  new ApiError('VALIDATION_ERROR', message, details)
/** 422 with a message of its own and the details that say where. */
export const invalid = make('VALIDATION_ERROR')
export const rateLimitedError = make('RATE_LIMITED')
/** 500: never shows its cause to the client; the cause is logged. */
export const internal = (cause?: unknown) =>
  new ApiError('INTERNAL', 'The server could not complete the request.', [], {}, { cause })
/** 503 with `Retry-After`: the database or Redis cannot be reached, or the server is starting. */
export const unavailable = (message: string, options: { retryAfterSeconds?: number; cause?: unknown } = {}) =>
  new ApiError(
    'UNAVAILABLE',
    message,
    [],
    { 'Retry-After': String(options.retryAfterSeconds ?? 1) },
    {
      cause: options.cause,
    },
  )
