import type { AccountSection } from '../account/sections.ts'
import { html } from '../oauth/pages/html.ts'

/** The account page's `Sign-in providers` section: link or unlink an outside identity. */
export const identitySection: AccountSection = {
  steps: [],
  render: async () => html``,
  handle: async () => new Response(null, { status: 400 }),
}
