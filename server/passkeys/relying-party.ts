import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { sha256Base64url } from '../../shared/crypto.ts'
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

/** The stored form of a challenge: only its hash is kept, so a read of the table answers nothing. */
const challengeKey = (challenge: Uint8Array) => sha256Base64url(encodeBase64urlNoPadding(challenge))

/** A new random challenge (32 bytes), saved for one answer within CHALLENGE_TTL_MS; base64url. */
export async function issueChallenge(
  ctx: { store: Tx; clock: () => number },
  purpose: ChallengePurpose,
  userId: string | null,
): Promise<string> {
  const challenge = crypto.getRandomValues(new Uint8Array(32))
  await ctx.store.signIn.saveChallenge(challengeKey(challenge), {
    userId,
    purpose,
    expiresAt: ctx.clock() + CHALLENGE_TTL_MS,
  })
  return encodeBase64urlNoPadding(challenge)
}

/**
 * Takes the challenge a browser answered: once only, live, for this purpose and (when bound to one)
 * this user. Anything else is refused as `challenge`, so a replayed answer fails here.
 */
export async function takeChallenge(
  ctx: { store: Tx; clock: () => number },
  challenge: Uint8Array,
  purpose: ChallengePurpose,
  userId: string | null,
): Promise<void> {
  const taken = await ctx.store.signIn.takeChallenge(challengeKey(challenge), ctx.clock())
  if (!taken || taken.purpose !== purpose || taken.userId !== userId) throw new PasskeyRefused('challenge')
}
