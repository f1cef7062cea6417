import { GraphQLError } from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { ApiError, type ErrorCode, type ErrorDetail } from '../../shared/errors.ts'

/**
 * GraphQL errors carry one of the contract's codes in `extensions.code`; `BAD_USER_INPUT` also
 * carries `details` (`[{field, message}]`, as REST) and `reason` (the REST code it stands for).
 * Anything else is masked as `INTERNAL` and logged, never shown.
 */
type GraphQLErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'BAD_USER_INPUT'
  | 'RATE_LIMITED'
  | 'INTERNAL'

const CODES: readonly string[] = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'RATE_LIMITED',
  'INTERNAL',
] satisfies GraphQLErrorCode[]

const FROM_API: Partial<Record<ErrorCode, GraphQLErrorCode>> = {
  UNAUTHORIZED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  BAD_REQUEST: 'BAD_USER_INPUT',
  VALIDATION_ERROR: 'BAD_USER_INPUT',
  CONFLICT: 'BAD_USER_INPUT',
  PRECONDITION_FAILED: 'BAD_USER_INPUT',
  METHOD_NOT_ALLOWED: 'BAD_USER_INPUT',
  PAYLOAD_TOO_LARGE: 'BAD_USER_INPUT',
  RATE_LIMITED: 'RATE_LIMITED',
}

const INTERNAL_MESSAGE = 'The server could not complete the request.'
/** REST's message names the Idempotency-Key, which mutations do not take (docs/graphql.md). */
export const UNAVAILABLE_MESSAGE =
  'The database cannot be reached, so this request was not acknowledged: try again in a moment.'

/**
 * The contract's GraphQL codes have none for REST's 503: a database that cannot be reached is
 * `INTERNAL` with `reason: "UNAVAILABLE"` (the REST code, as `BAD_USER_INPUT` carries its own),
 * `retryAfter` (seconds, REST's Retry-After) and a message that says to retry (docs/graphql.md).
 */
function unavailableError(error: ApiError): GraphQLError {
  const retryAfter = Number(error.headers['Retry-After'] ?? 1)
  return new GraphQLError(UNAVAILABLE_MESSAGE, {
    extensions: { code: 'INTERNAL', reason: 'UNAVAILABLE', retryAfter },
  })
}

/** The GraphQL error for an engine error, keeping its message and field details. */
export function fromApiError(error: ApiError): GraphQLError {
  if (error.code === 'UNAVAILABLE') return unavailableError(error)
  const code = FROM_API[error.code]
  if (!code) return internalError()
  const extensions: Record<string, unknown> = { code }
  if (code === 'BAD_USER_INPUT') {
    extensions.reason = error.code
    extensions.details = error.details
  } else if (error.details.length > 0) {
    extensions.details = error.details
  }
  return new GraphQLError(error.message, { extensions })
}

export function internalError(): GraphQLError {
  return new GraphQLError(INTERNAL_MESSAGE, { extensions: { code: 'INTERNAL' } })
}

/** A client error raised by the GraphQL layer itself. */
export function badUserInput(message: string, details: ErrorDetail[] = []): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST', details } })
}

function rethrow(error: unknown): never {
  throw error instanceof ApiError ? fromApiError(error) : error
}

/** Wraps a resolver so engine errors (ApiError) become the contract's GraphQL errors. */
export function guard<A extends unknown[], R>(resolver: (...args: A) => R): (...args: A) => R {
  return (...args: A): R => {
    try {
      const result = resolver(...args)
      return (result instanceof Promise ? result.catch(rethrow) : result) as R
    } catch (error) {
      rethrow(error)
    }
  }
}

/** True for errors raised on purpose (by graphql-js, Yoga, the limits or us), false for failures. */
function isDeliberate(error: GraphQLError): boolean {
  let cause: unknown = error.originalError
  while (cause instanceof GraphQLError) cause = cause.originalError
  return cause === undefined || cause === null
}

/**
 * Puts a deliberate error under the contract's codes: parse, validation and request errors
 * (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, BAD_REQUEST, none) are `BAD_USER_INPUT`.
 * Changes the error in place, keeping `extensions.http` (the status Yoga answers with).
 */
function withContractCode(error: GraphQLError): GraphQLError {
  const extensions = error.extensions as Record<string, unknown>
  if (typeof extensions.code === 'string' && CODES.includes(extensions.code)) return error
  extensions.code = 'BAD_USER_INPUT'
  extensions.details ??= []
  return error
}

/**
 * Yoga's `maskedErrors.maskError`: deliberate errors pass with a contract code; anything else (a
 * bug, SQLite, a library) becomes `INTERNAL` with the same path and locations. Yoga logs the
 * original through the logger it was given.
 */
export function maskError(error: unknown): Error {
  if (error instanceof ApiError) return fromApiError(error)
  if (error instanceof GraphQLError) {
    if (error.originalError instanceof ApiError) {
      const mapped = fromApiError(error.originalError)
      return new GraphQLError(mapped.message, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        extensions: mapped.extensions,
      })
    }
    if (isDeliberate(error)) return withContractCode(error)
    return new GraphQLError(INTERNAL_MESSAGE, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { code: 'INTERNAL' },
    })
  }
  return internalError()
}

/** Validation errors are returned, not thrown, so they pass here rather than through maskError. */
export function useContractErrorCodes(): Plugin {
  return {
    onValidate() {
      return ({ valid, result }) => {
        if (!valid) for (const error of result) withContractCode(error)
      }
    },
  }
}
