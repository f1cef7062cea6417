/** The messages of the account page's `notice` keys that the page itself shows (role="status"). */
export const ACCOUNT_NOTICES: Record<string, string> = {
  'factor-required': 'Your organization requires a second factor: add another one before removing your last.',
  'totp-enrolled': 'Your authenticator app is set up.',
  'totp-removed': 'The authenticator app was removed.',
  'identity-linked': 'The provider is linked: you can sign in with it.',
  'identity-unlinked': 'The provider is unlinked.',
  'identity-last':
    'That provider is your only way to sign in: add a passkey or ask an administrator for a password first.',
}

/** The query's `notice`, when it has the shape of a key. */
export const noticeKey = (value: string | null): string | null =>
  value !== null && /^[a-z0-9-]{1,40}$/.test(value) ? value : null

/** The notice of a removal refused because the organization requires the factor (the user's last). */
export const FACTOR_REQUIRED = 'factor-required'
