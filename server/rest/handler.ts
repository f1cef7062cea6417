import type { Principal } from '../auth/tokens.ts'
import { methodNotAllowed } from '../http/responses.ts'

export interface RouteRequest {
  request: Request
  url: URL
  params: Record<string, string>
  principal: Principal
}

export type MethodHandler = (req: RouteRequest) => Response | Promise<Response>

/** Methods of one path. HEAD and OPTIONS are derived: HEAD from GET, OPTIONS lists `Allow`. */
export type MethodTable = Partial<
  Record<'GET' | 'QUERY' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', MethodHandler>
>

export function allowedMethods(table: MethodTable): string[] {
  const methods = Object.keys(table)
  if (table.GET) methods.splice(1, 0, 'HEAD')
  return [...methods, 'OPTIONS']
}

/** Picks the handler for the request's method; 405 with `Allow` for the others. */
export function pickHandler(table: MethodTable, method: string): MethodHandler | 'OPTIONS' {
  if (method === 'OPTIONS') return 'OPTIONS'
  // Own properties only: a method named `constructor` is not a handler.
  const handler =
    method === 'HEAD'
      ? table.GET
      : Object.hasOwn(table, method)
        ? table[method as keyof MethodTable]
        : undefined
  if (!handler) throw methodNotAllowed(allowedMethods(table))
  return handler
}

/** The same request moved to another position: `pagination.next`, the path of the next page. */
function nextPath(url: URL, name: 'cursor' | 'after', value: string | null | undefined): string | null {
  if (!value) return null
  // The first page of a walk has no position yet: the query string as given, plus the position.
  // Cursors and ids are URL-safe (base64url, TypeIDs), so nothing needs encoding.
  if (!url.searchParams.has(name) && /^[\w.-]+$/.test(value))
    return `${url.pathname}?${url.search.length > 1 ? `${url.search.slice(1)}&` : ''}${name}=${value}`
  const params = new URLSearchParams(url.searchParams)
  params.set(name, value)
  return `${url.pathname}?${params}`
}

/** Adds `next` to cursor and keyset pagination (spec: cursor style carries the next page's path). */
export function withNext<P extends { nextCursor?: string | null; nextAfter?: string | null }>(
  url: URL,
  pagination: P,
): P & { next?: string | null } {
  if ('nextCursor' in pagination)
    return { ...pagination, next: nextPath(url, 'cursor', pagination.nextCursor) }
  if ('nextAfter' in pagination) return { ...pagination, next: nextPath(url, 'after', pagination.nextAfter) }
  return pagination
}
