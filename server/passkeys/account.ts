import type { AccountSection } from '../account/sections.ts'
import { html } from '../oauth/pages/html.ts'

/** The account page's `Passkeys` section: add a passkey, remove one. */
export const passkeySection: AccountSection = {
  steps: [],
  render: async () => html``,
  handle: async () => new Response(null, { status: 400 }),
}
