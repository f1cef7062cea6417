import { OAuthError } from './errors.ts'

/** Reads an `application/x-www-form-urlencoded` body; RFC 6749 §3.2 forbids repeated parameters. */
export async function readForm(request: Request): Promise<Map<string, string>> {
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'The request body must be application/x-www-form-urlencoded.')
  }
  const params = new URLSearchParams(await request.text())
  const form = new Map<string, string>()
  for (const [name, value] of params) {
    if (form.has(name)) throw new OAuthError('invalid_request', `The ${name} parameter is repeated.`)
    form.set(name, value)
  }
  return form
}
