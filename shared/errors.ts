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

/**
 * The one error type of the product. The server renders it as the contract's error body; the CLI
 * rebuilds it from a response and maps it to an exit code.
 */
export class ApiError extends Error {
  readonly status: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
    this.name = 'ApiError'
    this.status = ERROR_STATUS[code]
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } }
  }
}

export const badRequest = (message: string, details: ErrorDetail[] = []) =>
  new ApiError('BAD_REQUEST', message, details)

export const validationError = (details: ErrorDetail[]) =>
  new ApiError('VALIDATION_ERROR', 'The request body is not valid.', details)

export const notFound = (message = 'No such resource.') => new ApiError('NOT_FOUND', message)
