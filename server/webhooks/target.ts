import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { type AddressClass, addressClass } from './addresses.ts'

/** A webhook URL the worker may POST to, and the address it was checked against. */
export interface Target {
  url: URL
  /** The address to connect to: the one checked, never looked up again. */
  address: string
}

/** A URL a delivery may not go to, with the reason a client sees (422 on create). */
export class TargetRefused extends Error {}

/** The names a host resolves to; injectable so that tests can answer what DNS would. */
export type Resolver = (host: string) => Promise<string[]>

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address)

/**
 * How long a URL's host may take to resolve (docs/webhooks.md, "What the server refuses"). The
 * system resolver has no limit of its own that the server controls, and a create waits for it.
 */
export const RESOLVE_TIMEOUT_MS = 5_000

/** The host's addresses, or TargetRefused when it does not resolve within `timeoutMs`. */
async function addressesOf(host: string, resolve: Resolver, timeoutMs: number): Promise<string[]> {
  const lookup = (async () => await resolve(host))()
  // A lookup that ends after the limit has nobody waiting for it: its failure is not an error.
  lookup.catch(() => {})
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new TargetRefused(`its host ${host} did not resolve within ${timeoutMs / 1000} s`)),
      timeoutMs,
    )
  })
  try {
    return await Promise.race([lookup, late])
  } catch (error) {
    if (error instanceof TargetRefused) throw error
    throw new TargetRefused(`its host ${host} does not resolve`)
  } finally {
    clearTimeout(timer)
  }
}

const WHY: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  'link-local': 'a link-local address (cloud metadata lives there)',
  'unique-local': 'a unique-local address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  shared: 'a shared (carrier-grade NAT) address',
}

/**
 * Checks a webhook URL and resolves its host once (docs/webhooks.md, "What the server refuses"):
 * https, or http under `allowHttp` to loopback only; no credentials in the URL; the host resolves
 * within `timeoutMs`, and every address it resolves to must be public (loopback too under
 * `allowHttp`). The URL parser has already turned decimal, hex and octal IPv4 forms (`2130706433`,
 * `0x7f.1`, `0177.0.0.1`) into dotted quads.
 */
export async function resolveTarget(
  text: string,
  allowHttp: boolean,
  resolve: Resolver = systemResolver,
  timeoutMs = RESOLVE_TIMEOUT_MS,
): Promise<Target> {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new TargetRefused('must be an absolute https URL')
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowHttp))
    throw new TargetRefused(
      allowHttp
        ? 'must be an https URL, or http to a loopback address'
        : 'must be an https URL (http to a loopback address needs serve --allow-http-webhooks)',
    )
  if (url.username || url.password) throw new TargetRefused('must not carry a user name or password')
  const host = url.hostname.replace(/^\[|\]$/g, '')
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    addresses = await addressesOf(host, resolve, timeoutMs)
    if (addresses.length === 0) throw new TargetRefused(`its host ${host} does not resolve`)
  }
  for (const address of addresses) {
    const kind = addressClass(address)
    if (kind === 'public' || (kind === 'loopback' && allowHttp)) continue
    const allow = kind === 'loopback' ? '; serve --allow-http-webhooks allows loopback addresses' : ''
    throw new TargetRefused(`its host resolves to ${WHY[kind]} (${address})${allow}`)
  }
  if (url.protocol === 'http:' && addresses.some((a) => addressClass(a) !== 'loopback'))
    throw new TargetRefused('http goes to a loopback address only; use https')
  return { url, address: addresses[0]! }
}
