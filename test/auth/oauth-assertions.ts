import { expect } from 'bun:test'

/** RFC 6749 §2.3.1: id and secret are form-urlencoded, joined by a colon, then base64. */
const formEncode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2)

export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`, 'utf8').toString('base64')}`

/** RFC 6749 §5.2: a JSON body of error and error_description, never cached (§5.1). */
export async function expectOAuthError(
  response: Response,
  status: number,
  error: string,
): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status)
  expect(response.headers.get('content-type')).toStartWith('application/json')
  expect(response.headers.get('cache-control')).toBe('no-store')
  const body = (await response.json()) as Record<string, unknown>
  expect(Object.keys(body).sort()).toEqual(['error', 'error_description'])
  expect(body.error).toBe(error)
  expect(typeof body.error_description).toBe('string')
  return body
}
