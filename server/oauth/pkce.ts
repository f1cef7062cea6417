import { constantTimeEqual, sha256Base64url } from '../../shared/crypto.ts'
import { OAuthError } from './errors.ts'

/** RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is always 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/

/**
 * Checks the PKCE parameters of an authorization request and returns the challenge to bind to
 * the code (null when none was sent). Only S256 is offered: `plain` (and a challenge without a
 * method, which RFC 7636 §4.3 reads as plain) is refused, and a public client must send one
 * (RFC 9700 §2.1.1).
 */
export function checkChallenge(
  challenge: string | undefined,
  method: string | undefined,
  publicClient: boolean,
): string | null {
  if (challenge === undefined) {
    if (method !== undefined)
      throw new OAuthError('invalid_request', 'code_challenge_method without code_challenge.')
    if (publicClient)
      throw new OAuthError('invalid_request', 'PKCE is required: send code_challenge with S256.')
    return null
  }
  if (method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256.')
  if (!S256_CHALLENGE.test(challenge))
    throw new OAuthError('invalid_request', 'code_challenge must be 43 base64url characters.')
  return challenge
}

/**
 * RFC 7636 §4.6 at the token endpoint. A code bound to a challenge needs the matching verifier;
 * a code issued without one refuses a verifier (RFC 9700 §2.1.1: a PKCE downgrade).
 */
export function checkVerifier(challenge: string | null, verifier: string | undefined): void {
  if (challenge === null) {
    if (verifier !== undefined)
      throw new OAuthError('invalid_grant', 'code_verifier sent for a code issued without code_challenge.')
    return
  }
  if (verifier === undefined)
    throw new OAuthError('invalid_grant', 'code_verifier is required for this code.')
  if (!VERIFIER.test(verifier)) throw new OAuthError('invalid_grant', 'code_verifier is malformed.')
  const computed = sha256Base64url(verifier)
  const encoder = new TextEncoder()
  if (!constantTimeEqual(encoder.encode(computed), encoder.encode(challenge)))
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.')
}
