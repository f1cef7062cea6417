/**
 * Elysia reads a request's path from the twelfth character of its URL on, taking every origin
 * to be at least as long as `http://a.bc` (elysiajs/elysia#748). A shorter one (`Host: api`, as
 * a proxy or a container network names the service) made every path 404 "No such path.". Such a
 * request reaches the router under the same host in the reserved `.invalid` domain (RFC 6761
 * §6.4); nothing downstream answers with the request's host.
 */
export function routable(request: Request): Request {
  // The path starts after "http://" (7) or "https://" (8) and the host.
  const pathAt = request.url.indexOf('/', 8)
  if (pathAt === -1 || pathAt >= 11) return request
  const url = new URL(request.url)
  url.hostname = `${url.hostname}.invalid`
  return new Request(url.href, request)
}
