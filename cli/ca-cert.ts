import { readFileSync } from 'node:fs'
import { rootCertificates } from 'node:tls'

/**
 * `fetch` that also trusts the CA in `API_CA_CERT` (a PEM file), for a server whose certificate a
 * private CA signed; the public CAs stay trusted. The file is read at the first request, and one
 * that cannot be read fails that request with a reason naming it.
 */
export function fetchTrusting(caFile: string | undefined, base: typeof fetch = fetch): typeof fetch {
  if (!caFile) return base
  let ca: string[] | undefined
  return ((input: RequestInfo | URL, init?: BunFetchRequestInit) => {
    try {
      ca ??= [...rootCertificates, readFileSync(caFile, 'utf8')]
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
      return Promise.reject(new Error(`API_CA_CERT ${caFile} cannot be read: ${reason}`))
    }
    return base(input, { ...init, tls: { ...init?.tls, ca } })
  }) as typeof fetch
}
