/** The public API with the signed-in user's bearer token; a refusal becomes an ApiFailure. */
import { refresh, session } from './auth.ts'

interface Detail {
  field: string
  message: string
}

/** A refusal of the API, as the contract's error body says it. */
export class ApiFailure extends Error {
  override name = 'ApiFailure'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Detail[] = [],
  ) {
    super(message)
  }
}

interface Answer<T> {
  status: number
  body: T
  etag: string | null
}

interface Init {
  method?: string
  json?: unknown
  headers?: Record<string, string>
}

async function send(path: string, init: Init): Promise<Response> {
  const headers: Record<string, string> = { Accept: 'application/json', ...init.headers }
  const token = session()?.accessToken
  if (token) headers.Authorization = `Bearer ${token}`
  if (init.json !== undefined) headers['Content-Type'] = 'application/json'
  return fetch(path, {
    method: init.method ?? 'GET',
    headers,
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
  })
}

/** Sends a request; a 401 renews the token once and tries again. */
export async function api<T = Record<string, unknown>>(path: string, init: Init = {}): Promise<Answer<T>> {
  let response = await send(path, init)
  if (response.status === 401 && (await refresh())) response = await send(path, init)
  const text = response.status === 204 || response.status === 304 ? '' : await response.text()
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = text
  }
  if (!response.ok && response.status !== 304) {
    const error = (body as { error?: { code?: string; message?: string; details?: Detail[] } } | null)?.error
    throw new ApiFailure(
      response.status,
      error?.code ?? String(response.status),
      error?.message ?? `The server answered ${response.status}.`,
      Array.isArray(error?.details) ? error.details : [],
    )
  }
  return { status: response.status, body: body as T, etag: response.headers.get('etag') }
}
