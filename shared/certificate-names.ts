/**
 * The host names and addresses a TLS certificate is for, in its order: the DNS and IP entries of
 * its subjectAltName as Node.js writes it (`IP Address:127.0.0.1, DNS:localhost`), or without
 * either its common name, which clients then check instead (RFC 6125 §6.4.4).
 */
export function certificateNames(subjectAltName: string | undefined, commonName?: string): string[] {
  const names = (subjectAltName ?? '')
    .split(/,\s*(?=[A-Za-z ]+:)/)
    .map((entry) => /^(DNS|IP Address):(.+)$/.exec(entry.trim()))
    .filter((match) => match !== null)
    // A name with a comma or a quote comes as a JSON string.
    .map(([, , value]) => (value!.startsWith('"') ? (JSON.parse(value!) as string) : value!))
  if (names.length > 0) return names
  return commonName ? [commonName] : []
}
