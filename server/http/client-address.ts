/**
 * The peer address of each request, as the socket reports it (Bun's `server.requestIP`), never
 * from headers a client can set (`X-Forwarded-For`). serve.ts records it before the app runs;
 * the login and device pages key their rate limits on it.
 */
const addresses = new WeakMap<Request, string>()

export function rememberClientAddress(request: Request, address: string | undefined): void {
  if (address) addresses.set(request, address)
}

/** The peer address, or "unknown" for requests that did not come through serve.ts (in-process tests). */
export function clientAddress(request: Request): string {
  return addresses.get(request) ?? 'unknown'
}
