/** Why a passkey (a WebAuthn registration or assertion) was refused; each has a message for the page. */
type PasskeyProblem =
  | 'missing'
  | 'malformed'
  | 'challenge'
  | 'origin'
  | 'relying-party'
  | 'user-verification'
  | 'algorithm'
  | 'registered'
  | 'unknown'
  | 'signature'
  | 'counter'
  | 'account'

// What the person is told: what happened and what to do, never a key, a signature or a stack.
const MESSAGES: Record<PasskeyProblem, string> = {
  missing:
    'The browser sent no passkey. Passkeys need JavaScript and a browser that supports them; sign in another way.',
  malformed: 'The browser’s answer could not be read. Try again.',
  challenge: 'This passkey request has expired or was used already. Go back and try again.',
  origin: 'The passkey answered for another site. Open this site at its own address and try again.',
  'relying-party': 'The passkey was made for another site.',
  'user-verification':
    'Your authenticator did not verify you (with a PIN, a fingerprint or your face). Passkeys here need that.',
  algorithm: 'This authenticator offers a kind of key this server does not take (it takes ES256 and RS256).',
  registered: 'This passkey is registered already.',
  unknown: 'This passkey is not registered here. Sign in another way, then add it on your account page.',
  signature: 'The passkey’s signature does not match. Try again.',
  counter:
    'This passkey’s counter did not move forward, so it may have been copied. Sign in another way and remove it on your account page.',
  account: 'This passkey belongs to an account that cannot sign in here.',
}

/** A passkey refused for a reason the person can be told (the page shows `message`). */
export class PasskeyRefused extends Error {
  constructor(readonly problem: PasskeyProblem) {
    super(MESSAGES[problem])
    this.name = 'PasskeyRefused'
  }
}

/** The message of a problem named in a page's notice (`passkey-refused-counter`), if it is one. */
export const refusalMessage = (problem: string): string | null =>
  Object.hasOwn(MESSAGES, problem) ? MESSAGES[problem as PasskeyProblem] : null
