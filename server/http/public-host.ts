import { X509Certificate } from 'node:crypto'
import { isIP } from 'node:net'
import { hostname } from 'node:os'
import { certificateNames } from '../../shared/certificate-names.ts'

/** Addresses that mean "every interface": a server listens there, no client connects there. */
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]', '::0', '0:0:0:0:0:0:0:0'])

/** A host as it goes in a URL: an IPv6 address in brackets. */
const inUrl = (host: string) => (isIP(host) === 6 ? `[${host}]` : host)

/**
 * The host in the default `--base-url` (the OAuth issuer) and in the start-up hint of a server
 * listening on `host`: that host itself, unless it is a wildcard address (`0.0.0.0`, `::`), which
 * a client cannot reach and a certificate does not cover. Then, with a certificate, the machine's
 * host name if the certificate is for it, else the first host name it is for (not a `*.` pattern),
 * else its first address; without one, or when it names nothing usable, the machine's host name.
 */
export function publicHost(host: string, certPem?: string, machine: string = hostname()): string {
  if (!WILDCARDS.has(host)) return inUrl(host.replace(/^\[(.*)\]$/, '$1'))
  if (certPem === undefined) return inUrl(machine)
  const cert = new X509Certificate(certPem)
  if (cert.checkHost(machine) !== undefined) return inUrl(machine)
  const names = certificateNames(cert.subjectAltName, /^CN=(.+)$/m.exec(cert.subject)?.[1])
  // A host name before an address; a `*.` name is a pattern, not a host.
  const named = names.find((name) => !isIP(name) && !name.startsWith('*')) ?? names.find((name) => isIP(name))
  return inUrl(named ?? machine)
}
