import { methodNotAllowed } from '../../shared/errors.ts'
import type { Principal } from '../auth/tokens.ts'

/** One request to a route, once its token is verified and its path parameters read. */
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

/** The methods of a path as `Allow` lists them. */
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
