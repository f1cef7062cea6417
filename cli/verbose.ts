/** Headers whose values are credentials; shown as `[redacted]` (the scheme of Authorization kept). */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key'])
/** Body fields that carry credentials: OAuth forms (RFC 6749, 7009, 7636, 8628) and JSON bodies alike. */
const SECRET_FIELD = /secret|token|password|assertion|code_verifier|^code$|device_code/i

const REDACTED = '[redacted]'
const MAX_BODY = 2000

function headerLine(name: string, value: string): string {
  if (!SECRET_HEADERS.has(name.toLowerCase())) return `${name}: ${value}`
  const scheme = /^(Bearer|Basic|DPoP)\s/i.exec(value)?.[1]
  return `${name}: ${scheme ? `${scheme} ` : ''}${REDACTED}`
}

function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson)
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) ? REDACTED : redactJson(v)]),
    )
  return value
}

/** A request body as it may be shown: secrets of a form or a JSON object replaced, long bodies cut. */
export function redactBody(body: string, contentType: string): string {
  let shown = body
  if (/x-www-form-urlencoded/i.test(contentType)) {
    shown = [...new URLSearchParams(body)]
      .map(([key, value]) => `${key}=${SECRET_FIELD.test(key) ? REDACTED : value}`)
      .join('&')
  } else if (/json/i.test(contentType)) {
    try {
      shown = JSON.stringify(redactJson(JSON.parse(body)))
    } catch {}
  }
  return shown.length > MAX_BODY ? `${shown.slice(0, MAX_BODY)}… (${body.length} bytes)` : shown
}

/**
 * `--verbose`: a fetch that prints each exchange on stderr, as curl -v does (`> ` what was sent,
 * `< ` what came back), never a token, secret or code: credential headers and body fields are
 * redacted, and the response body (which may carry tokens) is left to the command.
 */
export function verboseFetch(next: typeof fetch, print: (text: string) => void): typeof fetch {
  return (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input))
    const headers = new Headers(init.headers)
    const lines = [`> ${init.method ?? 'GET'} ${url.href}`]
    for (const [name, value] of headers) lines.push(`> ${headerLine(name, value)}`)
    if (typeof init.body === 'string' && init.body !== '')
      lines.push(`> ${redactBody(init.body, headers.get('content-type') ?? '')}`)
    print(`${lines.join('\n')}\n`)
    const started = performance.now()
    let response: Response
    try {
      response = await next(input, init)
    } catch (error) {
      print(`< (no answer: ${(error as Error).message})\n`)
      throw error
    }
    const answer = [`< HTTP ${response.status} ${response.statusText}`.trimEnd()]
    for (const [name, value] of response.headers) answer.push(`< ${headerLine(name, value)}`)
    answer.push(`< (${Math.round(performance.now() - started)} ms)`)
    print(`${answer.join('\n')}\n`)
    return response
  }) as typeof fetch
}
