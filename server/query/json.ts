import { ApiError, type ErrorDetail, validationError } from '../../shared/errors.ts'
import { checkJsonText } from '../http/json-text.ts'
import { MalformedBodyError, malformed } from './media.ts'

/**
 * A JSON body: an object holding the same parameters as a GET's query string, with JSON values
 * (`{"status": "paid", "amount_gte": 1000, "limit": 10, "include_total": true}`). An array of
 * strings or numbers stands for a comma-separated list (`{"status": ["paid", "shipped"]}`), and
 * `filter` carries the /api/v1/search expression. Other values (null, objects, nested arrays) are
 * 422 with a detail per key.
 */
export function parseJsonBody(text: string): URLSearchParams {
  let value: unknown
  try {
    checkJsonText(text)
    value = JSON.parse(text)
  } catch (error) {
    // Too deep, or a repeated member name: the text is not a JSON body this service reads (400).
    if (error instanceof ApiError)
      throw new MalformedBodyError(error.message, error.details, { cause: error })
    throw malformed(
      'The body is not valid JSON.',
      error instanceof Error ? error.message : 'malformed JSON',
      {
        cause: error,
      },
    )
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw validationError([{ field: 'body', message: 'must be a JSON object of query parameters' }])
  }
  const params = new URLSearchParams()
  const details: ErrorDetail[] = []
  for (const [name, raw] of Object.entries(value)) {
    const text = parameterText(raw)
    if (text === undefined)
      details.push({
        field: name,
        message: 'must be a string, number, boolean or a list of strings or numbers',
      })
    else params.set(name, text)
  }
  if (details.length > 0) throw validationError(details)
  return params
}

function parameterText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw
  if (typeof raw === 'boolean') return String(raw)
  if (typeof raw === 'number') return Number.isFinite(raw) ? String(raw) : undefined
  if (
    Array.isArray(raw) &&
    raw.length > 0 &&
    raw.every((v) => typeof v === 'string' || typeof v === 'number')
  )
    return raw.join(',')
  return undefined
}
