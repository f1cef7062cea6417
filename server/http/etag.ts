/**
 * Strong entity tag of a JSON representation: a hash of the exact bytes sent, so equal tags mean
 * byte-identical bodies (RFC 9110 §8.8.3). A validator needs no cryptographic hash, only one whose
 * collisions are negligible: 128 bits of two seeded 64-bit hashes, computed on every read.
 */
export function entityTag(body: string): string {
  const a = Bun.hash.xxHash64(body, 0x5eed1n).toString(36)
  const b = Bun.hash.wyhash(body, 0x5eed2n).toString(36)
  return `"${a}-${b}"`
}

/** The tags listed in an If-Match or If-None-Match header; `*` stays as is. */
export function parseTagList(header: string): string[] {
  return header
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean)
}
