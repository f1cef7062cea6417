/**
 * The client address of each request: the peer as the socket reports it (Bun's
 * `server.requestIP`), or under `serve --trust-proxy` the last `X-Forwarded-For` entry, which the
 * proxy in front appended (server/http/forwarded.ts); never a header otherwise. serve.ts records
 * it before the app runs; rate limits, the login and device pages and the access log use it.
 */
const addresses = new WeakMap<Request, string>()

export function rememberClientAddress(request: Request, address: string | undefined): void {
  if (address) addresses.set(request, address)
}

/** The peer address, or "unknown" for requests that did not come through serve.ts (in-process tests). */
export function clientAddress(request: Request): string {
  return addresses.get(request) ?? 'unknown'
}
