import { connectionFailure } from '../../shared/connection-failures.ts'
import type { Target } from './target.ts'

/** Most of a receiver's answer that is read; the rest is dropped unread. */
const MAX_RESPONSE_BYTES = 64 * 1024

export interface AttemptResult {
  /** The receiver's status; null when none came (refused, timed out, TLS failure). */
  status: number | null
  /** What went wrong, in a few words; null on a 2xx. */
  error: string | null
}

/** Reads at most MAX_RESPONSE_BYTES of a body, then cancels the rest. */
async function drain(response: Response): Promise<void> {
  const reader = response.body?.getReader()
  if (!reader) return
  let read = 0
  try {
    while (read < MAX_RESPONSE_BYTES) {
      const { done, value } = await reader.read()
      if (done) return
      read += value.byteLength
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}

/**
 * One POST to the address that was checked (never looked up again): the URL's host is kept for
 * `Host`, TLS's server name and the certificate check. Redirects are not followed (a 3xx is a
 * failure); a 2xx within `timeoutMs` is a success.
 */
export async function postOnce(
  target: Target,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<AttemptResult> {
  const { url, address } = target
  const host = address.includes(':') ? `[${address}]` : address
  const direct = `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${url.pathname}${url.search}`
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const response = await fetch(direct, {
      method: 'POST',
      headers: { ...headers, host: url.host },
      body,
      redirect: 'manual',
      signal,
      // The certificate is verified against serverName, the URL's host, not the address.
      tls: { serverName: url.hostname.replace(/^\[|\]$/g, '') },
    })
    await Promise.race([
      drain(response),
      new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })),
    ])
    if (response.status >= 200 && response.status < 300) return { status: response.status, error: null }
    const error =
      response.status >= 300 && response.status < 400
        ? `redirect to ${response.headers.get('location')?.slice(0, 200) ?? 'nowhere'} not followed`
        : `answered ${response.status}`
    return { status: response.status, error }
  } catch (error) {
    if (signal.aborted) return { status: null, error: `no answer within ${timeoutMs / 1000} s` }
    return { status: null, error: connectionFailure(error) }
  }
}
