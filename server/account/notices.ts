/** The messages of the account page's `notice` keys that the page itself shows (role="status"). */
export const ACCOUNT_NOTICES: Record<string, string> = {
  'totp-enrolled': 'Your authenticator app is set up.',
  'totp-removed': 'The authenticator app was removed.',
}

/** The query's `notice`, when it has the shape of a key. */
export const noticeKey = (value: string | null): string | null =>
  value !== null && /^[a-z0-9-]{1,40}$/.test(value) ? value : null
