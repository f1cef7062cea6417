import { ApiError } from '../../shared/errors.ts'
import { OAuthError } from './errors.ts'

/** Reads an `application/x-www-form-urlencoded` body; RFC 6749 §3.2 forbids repeated parameters. */
export async function readForm(request: Request): Promise<Map<string, string>> {
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'The request body must be application/x-www-form-urlencoded.')
  }
  let text: string
  try {
    text = await request.text()
  } catch (error) {
    // A body that ended early or stalled (server/http/limits.ts): the client's fault, in OAuth's words.
    if (error instanceof ApiError)
      throw new OAuthError('invalid_request', error.message, error.status, error.headers)
    throw error
  }
  const params = new URLSearchParams(text)
  const form = new Map<string, string>()
  for (const [name, value] of params) {
    if (form.has(name)) throw new OAuthError('invalid_request', `The ${name} parameter is repeated.`)
    form.set(name, value)
  }
  return form
}
