import {
  PRIVATE_CACHING,
  type Representation,
  representation,
  textRepresentation,
} from '../http/conditional.ts'
import { type ListFormat, tabularAnswer } from '../http/tabular.ts'
import type { ListAnswer } from '../resources/list-page.ts'
import type { Pagination } from '../resources/reads.ts'

/** A list's representation depends on Accept as well as on the token. */
const LIST_VARY = `${PRIVATE_CACHING.Vary}, Accept`

type Paged = Pagination & { next?: string | null }

/**
 * The next page's path for a CSV or NDJSON answer, whose `Link` stands for the JSON's
 * `pagination`: its `next` in cursor and keyset styles, and in page and offset styles the same
 * request one page on (JSON answers carry `page` and `hasMore` for a client to do that itself),
 * given the request's URL: a stored query's GET continues at a cursor only.
 */
function nextPage(link: URL | undefined, pagination: Paged): string | null {
  if (pagination.next !== undefined) return pagination.next
  if (!pagination.hasMore || link === undefined) return null
  const params = new URLSearchParams(link.searchParams)
  if (pagination.offset !== undefined) params.set('offset', String(pagination.offset + pagination.limit))
  else if (pagination.page !== undefined) params.set('page', String(pagination.page + 1))
  else return null
  return `${link.pathname}?${params}`
}

/**
 * A page of a list in the format the request negotiated: the JSON envelope as it always was, or
 * its records as CSV (in `columns`, worked out only for CSV) or NDJSON, with `Link` to the next
 * page and `X-Total-Count` when counted. Every format varies by Accept, and so has its own ETag.
 */
export function listRepresentation(
  format: ListFormat,
  answer: ListAnswer,
  link: URL | undefined,
  columns: () => readonly string[],
  extra: Readonly<Record<string, string>> = {},
): Representation {
  if (format === 'json')
    return representation(answer.body, answer.lastModified, { Vary: LIST_VARY, ...extra })
  const { data, pagination } = answer.body as { data: unknown[]; pagination: Paged }
  const { text, headers } = tabularAnswer(format, {
    columns: format === 'csv' ? columns() : [],
    items: data,
    next: nextPage(link, pagination),
    total: pagination.total,
  })
  return textRepresentation(text, answer.lastModified, { Vary: LIST_VARY, ...extra, ...headers })
}
