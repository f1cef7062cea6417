import { badRequest } from '../errors.ts'
import { DEFAULT_LIMIT, MAX_LIMIT, type Page } from './types.ts'

export const PAGINATION_PARAMS = [
  'limit',
  'per_page',
  'page',
  'offset',
  'cursor',
  'after',
  'include_total',
] as const

function integerParam(name: string, raw: string, min: number, max: number): number {
  if (!/^-?\d{1,16}$/.test(raw)) {
    throw badRequest(`The ${name} parameter must be a whole number.`, [
      { field: name, message: 'must be a whole number' },
    ])
  }
  const value = Number(raw)
  if (value < min || value > max) {
    throw badRequest(`The ${name} parameter is out of range.`, [
      {
        field: name,
        message:
          max === Number.MAX_SAFE_INTEGER ? `must be at least ${min}` : `must be between ${min} and ${max}`,
      },
    ])
  }
  return value
}

/**
 * The page a request asks for. Styles: page + per_page (or page + limit), offset + limit,
 * cursor + limit, after + limit; none given means cursor style from the start. Mixing is a 400.
 */
export function parsePage(params: URLSearchParams): { page: Page; includeTotal: boolean } {
  const get = (name: string) => params.get(name) ?? undefined
  const limitRaw = get('limit')
  const perPageRaw = get('per_page')
  if (limitRaw !== undefined && perPageRaw !== undefined) {
    throw badRequest('Use limit or per_page, not both.', [
      { field: 'per_page', message: 'cannot be combined with limit' },
    ])
  }
  const limit =
    limitRaw !== undefined
      ? integerParam('limit', limitRaw, 1, MAX_LIMIT)
      : perPageRaw !== undefined
        ? integerParam('per_page', perPageRaw, 1, MAX_LIMIT)
        : DEFAULT_LIMIT
  const styles = (['page', 'offset', 'cursor', 'after'] as const).filter((s) => get(s) !== undefined)
  if (styles.length > 1) {
    throw badRequest('Use one pagination style at a time.', [
      { field: styles[1]!, message: `cannot be combined with ${styles[0]}` },
    ])
  }
  if (perPageRaw !== undefined && styles[0] !== 'page' && styles.length > 0) {
    throw badRequest('per_page goes with page.', [
      { field: 'per_page', message: `cannot be combined with ${styles[0]}` },
    ])
  }
  const includeTotalRaw = get('include_total')
  if (includeTotalRaw !== undefined && includeTotalRaw !== 'true' && includeTotalRaw !== 'false') {
    throw badRequest('include_total must be true or false.', [
      { field: 'include_total', message: 'must be true or false' },
    ])
  }
  const includeTotal = includeTotalRaw === 'true'
  const style = styles[0] ?? (perPageRaw !== undefined ? 'page' : 'cursor')
  switch (style) {
    case 'page':
      return {
        page: { style, limit, page: integerParam('page', get('page') ?? '1', 1, 1_000_000) },
        includeTotal,
      }
    case 'offset':
      return {
        page: { style, limit, offset: integerParam('offset', get('offset')!, 0, 100_000_000) },
        includeTotal,
      }
    case 'after': {
      const after = get('after')!
      // An id is printable ASCII; anything else (a NUL, which PostgreSQL's text cannot hold) is no id.
      if (after.length === 0 || after.length > 100 || !/^[\x21-\x7e]+$/.test(after)) {
        throw badRequest('The after parameter must be a record id.', [
          { field: 'after', message: 'must be a record id' },
        ])
      }
      return { page: { style: 'keyset', limit, after }, includeTotal }
    }
    default: {
      const cursor = get('cursor')
      if (cursor !== undefined && cursor.length === 0) {
        throw badRequest('The cursor parameter is empty.', [
          { field: 'cursor', message: 'must not be empty' },
        ])
      }
      return { page: { style: 'cursor', limit, cursor }, includeTotal }
    }
  }
}

/**
 * 400 naming every query parameter a route does not know; `hints` says, for a name, where that
 * parameter does belong.
 */
export function rejectUnknownParams(
  params: URLSearchParams,
  known: ReadonlySet<string>,
  hints: ReadonlyMap<string, string> = new Map(),
): void {
  const seen = new Set<string>()
  const unknown: string[] = []
  let repeated: string | undefined
  for (const name of params.keys()) {
    if (!known.has(name)) {
      if (!unknown.includes(name)) unknown.push(name)
    } else if (seen.has(name)) repeated ??= name
    seen.add(name)
  }
  if (unknown.length > 0) {
    throw badRequest(
      `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`,
      unknown.map((name) => ({
        field: name,
        message: hints.get(name) ?? 'is not a parameter of this endpoint',
      })),
    )
  }
  if (repeated !== undefined) {
    throw badRequest(`The ${repeated} parameter is repeated.`, [
      { field: repeated, message: 'must appear at most once' },
    ])
  }
}
