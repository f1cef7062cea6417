import { readFileSync } from 'node:fs'
import { checkServerIdentity, rootCertificates } from 'node:tls'
import { certificateNames } from '../shared/certificate-names.ts'

/**
 * A request refused before it was sent because the server's certificate is not trusted (or
 * `API_CA_CERT` cannot be read): trying again cannot help, so the client does not retry it.
 */
export class TrustError extends Error {
  override name = 'TrustError'
}

/** OpenSSL's verification results that mean "no trusted CA signed this", as Bun reports them. */
const UNKNOWN_ISSUER = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
])

/** A certificate the TLS handshake refused: the issuer, the dates, the name, the signature. */
const isCertificateFailure = (code: string) => UNKNOWN_ISSUER.has(code) || /CERT|SIGNATURE/.test(code)

/** What node:tls checkServerIdentity's error carries: the host asked for and the certificate. */
type Mismatch = { host?: string; cert?: { subjectaltname?: string; subject?: { CN?: string } } }

const nameMismatch = ({ host, cert }: Mismatch) =>
  `the server's certificate is for ${new Intl.ListFormat('en').format(certificateNames(cert?.subjectaltname, cert?.subject?.CN)) || 'other names'}, not ${host}`

function trustFailure(error: unknown, caFile: string | undefined): unknown {
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (typeof code !== 'string' || !isCertificateFailure(code)) return error
  const message = (error as Error).message
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return new TrustError(nameMismatch(error as Mismatch))
  if (!UNKNOWN_ISSUER.has(code)) return new TrustError(message)
  return new TrustError(
    caFile
      ? `${message}: neither a public CA nor the CA in API_CA_CERT ${caFile} signed the server's certificate`
      : `${message}: if a private CA signed the server's certificate, name that CA's PEM file in API_CA_CERT`,
  )
}

/**
 * `fetch` that also trusts the CA in `API_CA_CERT` (a PEM file), for a server whose certificate a
 * private CA signed; the public CAs stay trusted. The file is read at the first request, and one
 * that cannot be read fails that request with a reason naming it. A certificate the handshake
 * refuses fails as a `TrustError`, pointing at `API_CA_CERT` when no trusted CA signed it.
 */
export function fetchTrusting(caFile: string | undefined, base: typeof fetch = fetch): typeof fetch {
  let ca: string[] | undefined
  return ((input: RequestInfo | URL, init?: BunFetchRequestInit) => {
    if (caFile) {
      try {
        ca ??= [...rootCertificates, readFileSync(caFile, 'utf8')]
      } catch (error) {
        const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
        return Promise.reject(new TrustError(`API_CA_CERT ${caFile} cannot be read: ${reason}`))
      }
    }
    // Node's check of the name, which (unlike Bun's own) says what the certificate is for.
    const tls = { ...init?.tls, ...(ca ? { ca } : {}), checkServerIdentity }
    const sent = base(input, { ...init, tls })
    return sent.catch((error: unknown) => Promise.reject(trustFailure(error, caFile)))
  }) as typeof fetch
}
