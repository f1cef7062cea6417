/** RFC 7636 in the browser, on WebCrypto (the console's only hashing; node:crypto is not there). */
const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')

/** 256 random bits, base64url: a `state`, or a code verifier (RFC 7636 §4.1: 43 characters). */
export const randomValue = () => base64url(crypto.getRandomValues(new Uint8Array(32)))

/** A code verifier and its S256 challenge, BASE64URL(SHA256(verifier)) (RFC 7636 §4.2). */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = randomValue()
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))
  return { verifier, challenge: base64url(new Uint8Array(digest)) }
}
