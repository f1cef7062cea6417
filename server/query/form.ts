import { malformed } from './media.ts'

// application/x-www-form-urlencoded as browsers write it (WHATWG URL §5): visible ASCII only, and
// every `%` starting an escape of two hex digits.
const FORM = /^(?:[\x21-\x24\x26-\x7e]|%[0-9A-Fa-f]{2})*$/

/**
 * A form body: the same parameters as a GET's query string (`status=paid&limit=10`). An empty body
 * asks for the first page, as a GET without parameters does.
 */
export function parseFormBody(text: string): URLSearchParams {
  const body = text.trim()
  if (!FORM.test(body)) {
    throw malformed(
      'The body is not application/x-www-form-urlencoded.',
      'must be name=value pairs joined by &, with spaces and other characters %-escaped',
    )
  }
  try {
    // Each name and value must decode to UTF-8 as well.
    for (const part of body.split('&')) decodeURIComponent(part.replace(/\+/g, ' '))
  } catch (error) {
    throw malformed(
      'The body is not application/x-www-form-urlencoded.',
      'holds an escape that is not UTF-8',
      {
        cause: error,
      },
    )
  }
  return new URLSearchParams(body)
}
