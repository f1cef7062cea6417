import { decodeBase64urlIgnorePadding } from '@oslojs/encoding'
import { PasskeyRefused } from './refusal.ts'

/** An assertion (`navigator.credentials.get`) as the script posts it, decoded. */
export interface PostedAssertion {
  credentialId: Uint8Array
  clientDataJSON: Uint8Array
  authenticatorData: Uint8Array
  signature: Uint8Array
  /** The user handle the authenticator keeps with a discoverable credential, if it sent one. */
  userHandle: Uint8Array | null
}

/** A registration (`navigator.credentials.create`) as the script posts it, decoded. */
export interface PostedRegistration {
  clientDataJSON: Uint8Array
  attestationObject: Uint8Array
}

// Far above what an authenticator sends (a credential id is at most 1023 bytes, WebAuthn §5.8.3;
// an RSA key and a packed attestation a few KiB), far below the edge's body limit.
const MAX_FIELD_CHARS = 16_384

const BASE64URL = /^[A-Za-z0-9_-]*$/

/** One base64url field of the form: refused as `malformed` when it is not base64url or too long. */
function bytes(form: Map<string, string>, name: string, optional = false): Uint8Array | null {
  const value = form.get(name) ?? ''
  if (value === '') {
    if (optional) return null
    throw new PasskeyRefused('missing')
  }
  if (value.length > MAX_FIELD_CHARS || !BASE64URL.test(value) || value.length % 4 === 1)
    throw new PasskeyRefused('malformed')
  try {
    return decodeBase64urlIgnorePadding(value)
  } catch {
    throw new PasskeyRefused('malformed')
  }
}

/**
 * The fields of an assertion form (`credential_id`, `client_data_json`, `authenticator_data`,
 * `signature`, optional `user_handle`). An empty `credential_id` (the form sent without the
 * script: no JavaScript, or no WebAuthn) is `missing`; a field that is not base64url is `malformed`.
 */
export function readAssertion(form: Map<string, string>): PostedAssertion {
  const credentialId = bytes(form, 'credential_id')!
  return {
    credentialId,
    clientDataJSON: bytes(form, 'client_data_json')!,
    authenticatorData: bytes(form, 'authenticator_data')!,
    signature: bytes(form, 'signature')!,
    userHandle: bytes(form, 'user_handle', true),
  }
}

/** The fields of a registration form (`client_data_json`, `attestation_object`). */
export function readRegistration(form: Map<string, string>): PostedRegistration {
  return {
    clientDataJSON: bytes(form, 'client_data_json')!,
    attestationObject: bytes(form, 'attestation_object')!,
  }
}
