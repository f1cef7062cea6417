import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { ClientDataType, parseAttestationObject } from '@oslojs/webauthn'
import type { Signer } from '../oauth/signer.ts'
import type { Tx } from '../store/store.ts'
import { checkedAuthenticatorData, checkedClientData } from './client-data.ts'
import type { PostedRegistration } from './credential-fields.ts'
import { type StoredKey, storedKey } from './public-key.ts'
import { PasskeyRefused } from './refusal.ts'
import { takeChallenge } from './relying-party.ts'

interface CeremonyContext {
  store: Tx
  clock: () => number
  issuer: string
  signer: Signer
}

/** A credential that passed registration, ready for `addPasskey`. */
interface NewPasskey extends StoredKey {
  /** The credential id, base64url without padding. */
  id: string
  signCount: number
}

// WebAuthn §5.8.3: a credential id is at most 1023 bytes.
const MAX_CREDENTIAL_ID_BYTES = 1023

/**
 * Verifies a registration (WebAuthn §7.1) for `userId`: `webauthn.create`, the challenge issued to
 * this user for `register` (taken once), this origin, this relying party id's hash, user presence
 * and verification, a credential with an ES256 or RS256 key, not registered before. Attestation
 * is not verified: the server asks for `none` and trusts no statement, whatever the format.
 */
export async function verifyRegistration(
  ctx: CeremonyContext,
  userId: string,
  posted: PostedRegistration,
): Promise<NewPasskey> {
  const client = checkedClientData(ctx.issuer, posted.clientDataJSON, ClientDataType.Create)
  await takeChallenge(ctx, client.challenge, 'register', userId)
  let attestation: ReturnType<typeof parseAttestationObject>
  try {
    attestation = parseAttestationObject(posted.attestationObject)
  } catch {
    throw new PasskeyRefused('malformed')
  }
  const data = checkedAuthenticatorData(ctx.issuer, attestation.authenticatorData)
  const credential = data.credential
  if (!credential || credential.id.byteLength === 0 || credential.id.byteLength > MAX_CREDENTIAL_ID_BYTES)
    throw new PasskeyRefused('malformed')
  const key = storedKey(credential.publicKey)
  const id = encodeBase64urlNoPadding(credential.id)
  if (await ctx.store.signIn.findPasskey(id)) throw new PasskeyRefused('registered')
  return { id, ...key, signCount: data.signatureCounter }
}
