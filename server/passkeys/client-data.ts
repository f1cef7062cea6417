import {
  type AuthenticatorData,
  type ClientData,
  type ClientDataType,
  parseAuthenticatorData,
  parseClientDataJSON,
} from '@oslojs/webauthn'
import { PasskeyRefused } from './refusal.ts'
import { relyingParty } from './relying-party.ts'

/** The client data of a ceremony (WebAuthn §7.1 steps 7-9, §7.2 steps 10-13): type and origin checked. */
export function checkedClientData(issuer: string, encoded: Uint8Array, type: ClientDataType): ClientData {
  let data: ClientData
  try {
    data = parseClientDataJSON(encoded)
  } catch {
    throw new PasskeyRefused('malformed')
  }
  if (data.type !== type) throw new PasskeyRefused('malformed')
  // The page is this origin's, never framed (frame-ancestors 'none'): any other origin, or a
  // cross-origin frame, is a phishing site relaying the ceremony.
  if (data.origin !== relyingParty(issuer).origin || data.crossOrigin === true)
    throw new PasskeyRefused('origin')
  return data
}

/**
 * The authenticator data (WebAuthn §6.1), with the relying party id's hash, user presence and user
 * verification checked: a passkey here is a whole sign-in, so the authenticator must have verified
 * the person (UV), not only seen a touch (UP). Takes the bytes of an assertion, or what the
 * attestation object's parser made of a registration's.
 */
export function checkedAuthenticatorData(issuer: string, encoded: Uint8Array | AuthenticatorData) {
  let data: AuthenticatorData
  try {
    data = encoded instanceof Uint8Array ? parseAuthenticatorData(encoded) : encoded
  } catch {
    throw new PasskeyRefused('malformed')
  }
  if (!data.verifyRelyingPartyIdHash(relyingParty(issuer).id)) throw new PasskeyRefused('relying-party')
  if (!data.userPresent || !data.userVerified) throw new PasskeyRefused('user-verification')
  return data
}
