import { isIP } from 'node:net'

/**
 * What the proxy in front says about the connection it took (`serve --trust-proxy`): the
 * client's address and the scheme it used. Only the last entry of each header counts: that is
 * the one the proxy in front appended; everything before it came from the client, who can write
 * anything there.
 */
export interface Forwarded {
  address?: string
  scheme?: 'http' | 'https'
}

/** The last comma-separated entry of a header, trimmed; the header may be long, so no split. */
function lastEntry(value: string | null): string {
  if (value === null) return ''
  return value.slice(value.lastIndexOf(',') + 1).trim()
}

/**
 * The address in the last entry of `X-Forwarded-For`, without a port (`203.0.113.7:51234`,
 * `[2001:db8::1]:443`), or undefined when it is not an IP address (RFC 7239's `unknown` and
 * obfuscated identifiers, garbage): the peer's address is used then.
 */
export function forwardedFor(value: string | null): string | undefined {
  let entry = lastEntry(value)
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(entry)
  if (bracketed) entry = bracketed[1]!
  else if (/^[\d.]+:\d{1,5}$/.test(entry)) entry = entry.slice(0, entry.indexOf(':'))
  return isIP(entry) === 0 ? undefined : entry.toLowerCase()
}

/** The scheme in the last entry of `X-Forwarded-Proto` (`http` or `https`, any case), else undefined. */
export function forwardedProto(value: string | null): Forwarded['scheme'] {
  const entry = lastEntry(value).toLowerCase()
  return entry === 'https' || entry === 'http' ? entry : undefined
}

/** The connection as the proxy in front describes it. */
export function forwarded(headers: Headers): Forwarded {
  return {
    address: forwardedFor(headers.get('x-forwarded-for')),
    scheme: forwardedProto(headers.get('x-forwarded-proto')),
  }
}
