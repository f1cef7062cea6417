import { badRequest, unsupportedMediaType, validationError } from '../../shared/errors.ts'
import { isJsonType } from '../http/body.ts'
import { checkJsonText } from '../http/json-text.ts'

/** What an action's body may hold: nothing (contract, "Actions": an empty body or `{}`). */
type ActionBody = Record<string, never>

/**
 * Reads the body of an action request: empty (whatever the Content-Type, as `curl -X POST` sends
 * it) or a JSON `{}`. A non-empty body of another media type is 415, one that does not parse 400,
 * and any other JSON value, an object with members above all, 422 with a detail per member.
 */
export function parseActionBody(contentType: string | null, text: string): ActionBody {
  // RFC 8259 §2: JSON's whitespace is these four characters, not String.prototype.trim's.
  if (/^[ \t\r\n]*$/.test(text)) return {}
  if (!isJsonType(contentType)) {
    throw unsupportedMediaType('An action takes no body, or {} as application/json.', [
      { field: 'Content-Type', message: 'must be application/json' },
    ])
  }
  checkJsonText(text)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    throw badRequest('The request body is not valid JSON.', {
      details: [{ field: 'body', message: error instanceof Error ? error.message : 'malformed JSON' }],
      cause: error,
    })
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw validationError([{ field: 'body', message: 'must be empty or {}' }])
  const names = Object.keys(body)
  if (names.length > 0)
    throw validationError(
      names.map((name) => ({ field: name.slice(0, 200), message: 'an action takes no fields' })),
    )
  return {}
}

/** The body of an action request, read and checked. */
export async function readActionBody(request: Request): Promise<ActionBody> {
  return parseActionBody(request.headers.get('content-type'), await request.text())
}
