import { isIPv4, isIPv6 } from 'node:net'

/**
 * What an IP address is, for the webhook worker's refusal to reach inside the network (SSRF):
 * only `public` addresses may be the target of a delivery; `loopback` too under
 * `serve --allow-http-webhooks`. IPv4-mapped and -translated IPv6 addresses (`::ffff:127.0.0.1`,
 * `64:ff9b::7f00:1`) are judged by the IPv4 address they carry.
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'shared'

/** The 4 or 16 bytes of an address in its canonical text (as DNS answers and URL hosts give it); null otherwise. */
function addressBytes(text: string): Uint8Array | null {
  if (isIPv4(text)) return Uint8Array.from(text.split('.').map(Number))
  if (!isIPv6(text)) return null
  // A trailing dotted IPv4 part stands for the last two groups.
  const body = text
    .replace(/%.*$/, '')
    .replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
      [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((g) => g.toString(16)).join(':'),
    )
  const hex = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)))
  const halves = body.split('::')
  const front = hex(halves[0]!)
  const back = halves.length > 1 ? hex(halves[1]!) : []
  const groups =
    halves.length > 1 ? [...front, ...new Array(8 - front.length - back.length).fill(0), ...back] : front
  if (groups.length !== 8) return null
  const bytes = new Uint8Array(16)
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8
    bytes[2 * i + 1] = g & 0xff
  })
  return bytes
}

function classOfV4(b: Uint8Array): AddressClass {
  const [a, c] = [b[0]!, b[1]!]
  if (a === 127) return 'loopback'
  if (a === 0) return 'unspecified'
  if (a === 10 || (a === 172 && c >= 16 && c <= 31) || (a === 192 && c === 168)) return 'private'
  if (a === 169 && c === 254) return 'link-local'
  // 100.64/10: carrier-grade NAT, where some clouds keep their metadata service.
  if (a === 100 && c >= 64 && c <= 127) return 'shared'
  if (a >= 224 && a <= 239) return 'multicast'
  // 240/4 and the broadcast address; 192.0.0/24, documentation and benchmarking ranges.
  if (a >= 240) return 'reserved'
  if (a === 192 && c === 0 && (b[2] === 0 || b[2] === 2)) return 'reserved'
  if (a === 198 && (c === 18 || c === 19)) return 'reserved'
  if ((a === 198 && c === 51 && b[2] === 100) || (a === 203 && c === 0 && b[2] === 113)) return 'reserved'
  return 'public'
}

const startsWith = (b: Uint8Array, prefix: number[]) => prefix.every((byte, i) => b[i] === byte)

function classOfV6(b: Uint8Array): AddressClass {
  const zeros = (from: number, to: number) => b.slice(from, to).every((byte) => byte === 0)
  // ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible, deprecated), 64:ff9b::a.b.c.d (NAT64).
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return classOfV4(b.slice(12))
  if (startsWith(b, [0, 0x64, 0xff, 0x9b]) && zeros(4, 12)) return classOfV4(b.slice(12))
  if (zeros(0, 15)) return b[15] === 1 ? 'loopback' : b[15] === 0 ? 'unspecified' : 'reserved'
  if (zeros(0, 12)) return classOfV4(b.slice(12))
  if ((b[0]! & 0xfe) === 0xfc) return 'unique-local'
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return 'link-local'
  // fec0::/10, the deprecated site-local range, is private in practice.
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return 'private'
  if (b[0] === 0xff) return 'multicast'
  // 2001:db8::/32 documentation; 100::/64 discard; 2002::/16 6to4 carries an IPv4 address.
  if (startsWith(b, [0x20, 0x01, 0x0d, 0xb8])) return 'reserved'
  if (startsWith(b, [0x01, 0x00]) && zeros(2, 8)) return 'reserved'
  if (startsWith(b, [0x20, 0x02])) return classOfV4(b.slice(2, 6))
  return 'public'
}

/** The class of an address in canonical text; `reserved` for text that is no address. */
export function addressClass(text: string): AddressClass {
  const bytes = addressBytes(text)
  if (!bytes) return 'reserved'
  return bytes.length === 4 ? classOfV4(bytes) : classOfV6(bytes)
}
