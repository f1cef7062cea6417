import { ApiError, type ErrorDetail } from '../../shared/errors.ts'
import type { Operation } from './body.ts'

/** Headers of an operation's error that still hold for the batch (not its path's `Allow`). */
const KEPT_HEADERS = ['WWW-Authenticate', 'Retry-After']

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * A detail of an operation's error, naming the place in the batch: a body field as
 * `operations[3].body.pages`, `If-Match` as `operations[3].ifMatch`; what names neither (the
 * record's state, a scope, the records that still reference it) goes to the path, with the name.
 */
function placed(op: Operation, error: ApiError, detail: ErrorDetail): ErrorDetail {
  const { field, message } = detail
  if (field.startsWith('operations[')) return detail
  if (field === 'If-Match') return { field: `${op.place}.ifMatch`, message }
  if (field === 'body') return { field: `${op.place}.body`, message }
  const top = field.split(/[.[]/)[0]!
  if (error.code === 'VALIDATION_ERROR' || (isObject(op.body) && Object.hasOwn(op.body, top)))
    return { field: `${op.place}.body.${field}`, message }
  return { field: `${op.place}.path`, message: `${field} ${message}` }
}

/**
 * An operation's error as the batch answers it: the operation's status and code, its message
 * prefixed with the operation, and details naming places in the batch (a 404 or 403 without
 * details names the path, a 405 the method). Anything but an ApiError stays as it is (a 500).
 */
function namedError(op: Operation, error: unknown): unknown {
  if (!(error instanceof ApiError)) return error
  const details =
    error.details.length > 0
      ? error.details.map((d) => placed(op, error, d))
      : [
          {
            field: `${op.place}.${error.code === 'METHOD_NOT_ALLOWED' ? 'method' : 'path'}`,
            message: error.message,
          },
        ]
  const headers = Object.fromEntries(
    Object.entries(error.headers).filter(([name]) => KEPT_HEADERS.includes(name)),
  )
  const message = error.message.startsWith('operations[')
    ? error.message
    : `${op.place} (${op.method} ${op.path.slice(0, 200)}): ${error.message}`
  // new ApiError: the operation's own error, of whatever code, with its places in the batch.
  return new ApiError(error.code, message, { details, headers, cause: error })
}

/** Runs `step` of an operation; its error names the operation. */
export async function asOperation<T>(op: Operation, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step()
  } catch (error) {
    throw namedError(op, error)
  }
}
