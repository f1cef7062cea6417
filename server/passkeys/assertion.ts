import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { ClientDataType, createAssertionSignatureMessage } from '@oslojs/webauthn'
import type { Signer } from '../oauth/signer.ts'
import type { SignInStore, Tx } from '../store/store.ts'
import { checkedAuthenticatorData, checkedClientData } from './client-data.ts'
import type { PostedAssertion } from './credential-fields.ts'
import { signatureValid } from './public-key.ts'
import { PasskeyRefused } from './refusal.ts'
import { type ChallengePurpose, takeChallenge } from './relying-party.ts'

/** A registered passkey, as the store keeps it. */
export type PasskeyRow = NonNullable<Awaited<ReturnType<SignInStore['findPasskey']>>>

interface CeremonyContext {
  store: Tx
  clock: () => number
  issuer: string
  signer: Signer
}

/**
 * Verifies an assertion (WebAuthn §7.2) and records the passkey's use: `webauthn.get`, the
 * challenge issued for `purpose` (to `userId` when bound to one; taken once, so a replay fails),
 * this origin, this relying party id's hash, user presence and verification, a registered
 * credential (the user's, when `userId` is given; its user handle, when sent, names its user), the
 * signature over authenticatorData || SHA-256(clientDataJSON), and a counter that grew (§6.1.1:
 * one that did not suggests a cloned authenticator). Answers the passkey used.
 */
export async function verifyAssertion(
  ctx: CeremonyContext,
  posted: PostedAssertion,
  purpose: ChallengePurpose,
  userId: string | null,
): Promise<PasskeyRow> {
  const client = checkedClientData(ctx.issuer, posted.clientDataJSON, ClientDataType.Get)
  await takeChallenge(ctx, client.challenge, purpose, userId)
  const data = checkedAuthenticatorData(ctx.issuer, posted.authenticatorData)
  const passkey = await ctx.store.signIn.findPasskey(encodeBase64urlNoPadding(posted.credentialId))
  if (!passkey || (userId !== null && passkey.userId !== userId)) throw new PasskeyRefused('unknown')
  if (posted.userHandle && new TextDecoder().decode(posted.userHandle) !== passkey.userId)
    throw new PasskeyRefused('unknown')
  const message = createAssertionSignatureMessage(posted.authenticatorData, posted.clientDataJSON)
  if (!signatureValid(passkey, message, posted.signature)) throw new PasskeyRefused('signature')
  if (!(await ctx.store.signIn.usePasskey(passkey.id, data.signatureCounter, ctx.clock())))
    throw new PasskeyRefused('counter')
  return passkey
}
