import { badRequest, unsupportedMediaType } from '../../shared/errors.ts'
import { checkJsonText } from './json-text.ts'

/** `application/json` or any `+json` type, with or without parameters. */
export function isJsonType(contentType: string | null): boolean {
  if (!contentType) return false
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

/**
 * Reads a JSON request body: 415 for another media type; 400 when it does not parse, nests too
 * deep or repeats a member name (server/http/json-text.ts).
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  if (!isJsonType(request.headers.get('content-type'))) {
    throw unsupportedMediaType('The request body must be application/json.', [
      { field: 'Content-Type', message: 'must be application/json' },
    ])
  }
  const text = await request.text()
  checkJsonText(text)
  try {
    return JSON.parse(text)
  } catch (error) {
    throw badRequest('The request body is not valid JSON.', {
      details: [{ field: 'body', message: error instanceof Error ? error.message : 'malformed JSON' }],
      cause: error,
    })
  }
}
