import {
  ApiError,
  badRequest,
  type ErrorDetail,
  invalid,
  payloadTooLarge,
  unsupportedMediaType,
} from '../../shared/errors.ts'

/** The query formats every QUERY resource accepts (contract), in the order Accept-Query lists them. */
export const QUERY_MEDIA_TYPES = [
  'application/x-www-form-urlencoded',
  'application/json',
  'application/sql',
  'application/jsonpath',
] as const

export type QueryMediaType = (typeof QUERY_MEDIA_TYPES)[number]

/**
 * RFC 10008 §3: Accept-Query is a Structured Field list (RFC 9651). Each media type is written as
 * an sf-string, which every parser reads the same way (a token would do too, but a string needs no
 * thought about which characters a token may hold).
 */
export const ACCEPT_QUERY = acceptQuery(QUERY_MEDIA_TYPES)

/**
 * What a collection's aggregates take: the parameters of its GET (form and JSON). SQL bodies with
 * GROUP BY go to the collection itself, and JSONPath selects records, not groups.
 */
export const AGGREGATE_QUERY_MEDIA_TYPES: readonly QueryMediaType[] = QUERY_MEDIA_TYPES.slice(0, 2)

export const ACCEPT_AGGREGATE_QUERY = acceptQuery(AGGREGATE_QUERY_MEDIA_TYPES)

function acceptQuery(types: readonly QueryMediaType[]): string {
  return types.map((type) => `"${type}"`).join(', ')
}

/** Largest QUERY body read, in bytes; larger ones are 413 before they are parsed. */
export const MAX_QUERY_BODY_BYTES = 64 * 1024

export interface QueryBody {
  mediaType: QueryMediaType
  text: string
}

/** 415 naming what the resource takes instead (`accepted`, its Accept-Query). */
const unsupported = (message: string, accepted: string = ACCEPT_QUERY) =>
  unsupportedMediaType(message, {
    details: [{ field: 'Content-Type', message }],
    headers: { 'Accept-Query': accepted },
  })

/**
 * The media type of a QUERY body: 400 without one (RFC 10008 §2: the content type is what gives
 * the body its meaning), 415 with Accept-Query for a type not accepted or a charset other than
 * UTF-8, and for a content coding (RFC 9110 §15.5.16).
 */
function queryMediaType(request: Request, accepted: readonly QueryMediaType[]): QueryMediaType {
  const accept = acceptQuery(accepted)
  const header = request.headers.get('content-type')
  if (header === null || header.trim() === '') {
    throw badRequest('A QUERY request needs a Content-Type naming its query format.', [
      { field: 'Content-Type', message: 'is required' },
    ])
  }
  const [type, ...parameters] = header.split(';').map((part) => part.trim())
  const mediaType = accepted.find((t) => t === type!.toLowerCase())
  if (!mediaType)
    throw unsupported(`${type!.slice(0, 100)} is not a query format this resource accepts`, accept)
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=').map((s) => s.trim())
    if (name?.toLowerCase() === 'charset' && value?.replace(/"/g, '').toLowerCase() !== 'utf-8')
      throw unsupported('the only charset accepted is utf-8', accept)
  }
  const coding = request.headers.get('content-encoding')
  if (coding !== null && coding.trim().toLowerCase() !== 'identity')
    throw unsupported('QUERY bodies are read without a content coding', accept)
  return mediaType
}

/**
 * Reads a QUERY body as UTF-8 text: 413 past the size limit, 400 when it is not UTF-8, 415 for a
 * type not `accepted`.
 */
export async function readQueryBody(
  request: Request,
  accepted: readonly QueryMediaType[] = QUERY_MEDIA_TYPES,
): Promise<QueryBody> {
  const mediaType = queryMediaType(request, accepted)
  const length = Number(request.headers.get('content-length') ?? '0')
  if (length > MAX_QUERY_BODY_BYTES) throw tooLarge()
  const bytes = new Uint8Array(await request.arrayBuffer())
  if (bytes.length > MAX_QUERY_BODY_BYTES) throw tooLarge()
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch (error) {
    throw malformed('The QUERY body is not UTF-8.', 'is not valid UTF-8', { cause: error })
  }
  return { mediaType, text }
}

/**
 * A body that does not match its Content-Type (400, RFC 10008 §2). Kept apart from the 400s of
 * interpreting a well-formed body, which a QUERY answers as 422.
 */
export class MalformedBodyError extends ApiError {
  /** `detail` is about `body`, or the details name their own fields (a repeated JSON member). */
  constructor(message: string, detail: string | ErrorDetail[], options: { cause?: unknown } = {}) {
    super('BAD_REQUEST', message, {
      details: typeof detail === 'string' ? [{ field: 'body', message: detail }] : detail,
      cause: options.cause,
    })
  }
}

export const malformed = (message: string, detail: string, options: { cause?: unknown } = {}) =>
  new MalformedBodyError(message, detail, options)

/** 422 for a well-formed body the service cannot run, with one detail on `body`. */
export const unprocessable = (message: string, detail: string, options: { cause?: unknown } = {}) =>
  invalid(message, { details: [{ field: 'body', message: detail }], cause: options.cause })

function tooLarge() {
  return payloadTooLarge(`A QUERY body may be at most ${MAX_QUERY_BODY_BYTES} bytes.`, [
    { field: 'body', message: `is larger than ${MAX_QUERY_BODY_BYTES} bytes` },
  ])
}
