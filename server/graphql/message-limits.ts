import { ApiError } from '../../shared/errors.ts'
import { checkJsonText } from '../http/json-text.ts'
import { MAX_BODY_BYTES } from '../http/limits.ts'

/** graphql-ws closes with this code on a message it cannot take (`CloseCode.BadRequest`). */
export const CLOSE_BAD_REQUEST = 4400
/** RFC 6455 §5.5: a control frame's payload is at most 125 bytes, 2 of them the code. */
const MAX_REASON_BYTES = 123

/**
 * Why a message over WebSocket breaks the limits of an HTTP body (docs/operations.md, "Size
 * limits"): more than MAX_BODY_BYTES, arrays and objects nested too deep, or a member name
 * repeated anywhere (in `payload.variables` too); undefined when it keeps them. The reason is
 * what the close frame says.
 */
export function messageRefusal(message: string | Buffer): string | undefined {
  const tooLarge =
    typeof message === 'string'
      ? message.length > MAX_BODY_BYTES / 3 && Buffer.byteLength(message) > MAX_BODY_BYTES
      : message.byteLength > MAX_BODY_BYTES
  if (tooLarge) return `Bad request: a message may be at most ${MAX_BODY_BYTES} bytes`
  try {
    // graphql-ws reads a binary message as UTF-8 text, as here.
    checkJsonText(typeof message === 'string' ? message : message.toString())
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    const detail = error.details[0]
    const what = !detail || detail.field === 'body' ? 'the message' : detail.field
    return closeReason(`Bad request: ${what} ${detail?.message ?? 'is not accepted'}`)
  }
  return undefined
}

function closeReason(text: string): string {
  let reason = text
  while (Buffer.byteLength(reason) > MAX_REASON_BYTES) reason = reason.slice(0, -1)
  return reason
}
