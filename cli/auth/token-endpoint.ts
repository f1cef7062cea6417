import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { apiErrorFrom, NetworkError } from '../errors.ts'
import type { Io } from '../io.ts'

const TokenResponse = Type.Object({
  access_token: Type.String(),
  token_type: Type.String(),
  expires_in: Type.Number(),
  refresh_token: Type.Optional(Type.String()),
  scope: Type.Optional(Type.String()),
})
export type TokenResponse = Static<typeof TokenResponse>

/** An RFC 6749 §5.2 error answer, kept as data so flows can react to `authorization_pending` etc. */
export class OAuthFailure extends Error {
  constructor(
    readonly error: string,
    readonly description: string | undefined,
    readonly status: number,
  ) {
    super(description ? `${error}: ${description}` : error)
    this.name = 'OAuthFailure'
  }
}

/** POSTs a form to an OAuth endpoint and returns the JSON answer, or throws OAuthFailure. */
export async function postForm(
  io: Io,
  url: string,
  form: Record<string, string>,
  basic?: { id: string; secret: string },
): Promise<unknown> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/x-www-form-urlencoded',
    Accept: 'application/json',
  }
  if (basic) {
    // RFC 6749 §2.3.1: form-encode before base64.
    const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+')
    headers.Authorization = `Basic ${btoa(`${encode(basic.id)}:${encode(basic.secret)}`)}`
  }
  let response: Response
  try {
    response = await io.fetch(url, {
      method: 'POST',
      headers,
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(30_000),
    })
  } catch (error) {
    throw new NetworkError(`could not reach ${new URL(url).origin} (${(error as Error).message})`)
  }
  const text = await response.text()
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    throw apiErrorFrom(response.status, null)
  }
  if (response.ok) return body
  const error = (body as { error?: unknown })?.error
  if (typeof error === 'string') {
    const description = (body as { error_description?: unknown }).error_description
    throw new OAuthFailure(error, typeof description === 'string' ? description : undefined, response.status)
  }
  throw apiErrorFrom(response.status, body)
}

export async function requestToken(
  io: Io,
  server: string,
  form: Record<string, string>,
  basic?: { id: string; secret: string },
): Promise<TokenResponse> {
  const body = await postForm(io, `${server}/oauth/token`, form, basic)
  if (!Value.Check(TokenResponse, body)) throw new Error('the token endpoint answered an unexpected body')
  return body
}
