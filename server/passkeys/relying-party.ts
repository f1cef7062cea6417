import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { sha256Base64url } from '../../shared/crypto.ts'
import type { Signer } from '../oauth/signer.ts'
import type { Tx } from '../store/store.ts'
import { PasskeyRefused } from './refusal.ts'

/** What a challenge is for: signing in without a password, adding a passkey, or a second factor. */
export type ChallengePurpose = 'sign-in' | 'register' | 'second-factor'

/** How long a challenge can be answered (the browser's `timeout` says the same). */
const CHALLENGE_TTL_MS = 5 * 60_000

/**
 * The relying party (WebAuthn §5.1.4.1): its id is the host name of the base URL, the origin its
 * origin. Passkeys made for one base URL's host work on no other.
 */
export function relyingParty(issuer: string): { id: string; origin: string } {
  const url = new URL(issuer)
  return { id: url.hostname, origin: url.origin }
}

/**
 * Why browsers will not use passkeys at this base URL, or null when they will. WebAuthn needs a
 * secure context and a relying party id that is a domain name: https, or http on `localhost`
 * (which browsers treat as secure); never an IP address (`http://127.0.0.1:8080`, the default of
 * a development server). The pages then offer no passkey control that could only fail.
 */
export function passkeysUnavailable(issuer: string): string | null {
  const url = new URL(issuer)
  const host = url.hostname
  const ip = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.startsWith('[')
  const local = host === 'localhost' || host.endsWith('.localhost')
  if (!ip && (url.protocol === 'https:' || local)) return null
  return `Passkeys need this service at an https address, or at http://localhost on your own machine; it is at ${url.origin}.`
}

/** The stored form of a spent challenge: only its hash is kept. */
const challengeKey = (challenge: Uint8Array) => sha256Base64url(encodeBase64urlNoPadding(challenge))

type ChallengeContext = { store: Tx; clock: () => number; signer: Signer }

/**
 * A new challenge for one answer within CHALLENGE_TTL_MS, base64url: a random value, the purpose
 * and (for a registration or second factor) the user, signed by the server. Nothing is stored
 * until a browser answers it, so showing a login page writes nothing.
 */
export async function issueChallenge(
  ctx: ChallengeContext,
  purpose: ChallengePurpose,
  userId: string | null,
): Promise<string> {
  const nonce = encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(16)))
  const signed = ctx.signer.sign(SIGNED_PURPOSE, { n: nonce, p: purpose, u: userId }, CHALLENGE_TTL_MS / 1000)
  return encodeBase64urlNoPadding(new TextEncoder().encode(signed))
}

/**
 * Takes the challenge a browser answered: signed by this server, live, for this purpose and (when
 * bound to one) this user, and answered once only: its hash is recorded as spent in the same
 * statement that checks it was not, so a replayed answer fails here, on any replica.
 */
export async function takeChallenge(
  ctx: ChallengeContext,
  challenge: Uint8Array,
  purpose: ChallengePurpose,
  userId: string | null,
): Promise<void> {
  const data = ctx.signer.verify(SIGNED_PURPOSE, new TextDecoder().decode(challenge)) as {
    p?: unknown
    u?: unknown
  } | null
  if (!data || data.p !== purpose || data.u !== userId) throw new PasskeyRefused('challenge')
  const spent = await ctx.store.signIn.spendChallenge(challengeKey(challenge), {
    userId,
    purpose,
    expiresAt: ctx.clock() + CHALLENGE_TTL_MS,
  })
  if (!spent) throw new PasskeyRefused('challenge')
}

const SIGNED_PURPOSE = 'webauthn-challenge'
