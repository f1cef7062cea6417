import { expect } from 'bun:test'
import { decodeBase32IgnorePadding } from '@oslojs/encoding'
import { generateHOTP } from '@oslojs/otp'
import { PASSWORD, PageAgent } from '../oauth/support.ts'
import type { TestServer } from '../support/server.ts'

/** The code an authenticator app shows for `key`, `offset` steps of 30 s from now. */
export const totpCode = (key: Uint8Array, offset = 0) =>
  generateHOTP(key, BigInt(Math.floor(Date.now() / 30_000) + offset), 6)

/** Signs `email` in on /account with the password; answers where the login form sent the browser. */
export async function passwordOnAccount(agent: PageAgent, email: string, path = '/account') {
  const page = await (await agent.get(path)).text()
  const response = await agent.submit(page, 'login', { email, password: PASSWORD })
  expect(response.status).toBe(303)
  return response.headers.get('location')!
}

/** The key the account page shows as text, as the bytes an authenticator app would keep. */
export function keyOnPage(page: string): Uint8Array {
  const match = /<code id="totp-key">([A-Z2-7 ]+)<\/code>/.exec(page)
  if (!match) throw new Error(`no key on the page:\n${page}`)
  return decodeBase32IgnorePadding(match[1]!.replaceAll(' ', ''))
}

/**
 * Enrols the authenticator app over HTTP as a person does: signs in, sets up, reads the key,
 * confirms with the current code. Answers the agent (signed in), the key and the recovery codes.
 */
export async function enrolTotp(base: string, email: string) {
  const agent = new PageAgent(base)
  expect(await passwordOnAccount(agent, email)).toBe('/account')
  let page = await (await agent.get('/account')).text()
  expect((await agent.submit(page, 'totp-start')).status).toBe(303)
  page = await (await agent.get('/account')).text()
  const key = keyOnPage(page)
  const confirmed = await agent.submit(page, 'totp-confirm', { code: totpCode(key) })
  expect(confirmed.status).toBe(200)
  const codesPage = await confirmed.text()
  const codes = [...codesPage.matchAll(/<li>([a-z2-7]{5}-[a-z2-7]{5})<\/li>/g)].map((m) => m[1]!)
  expect(codes).toHaveLength(10)
  return { agent, key, codes }
}

/** The `user.*` events of a user, oldest first, as stored (type, data, actor, request id). */
export async function userEvents(server: TestServer, userId: string) {
  const rows = await server.sql.all<{
    type: string
    data: unknown
    actor_type: string | null
    actor_id: string | null
    request_id: string | null
  }>(
    'SELECT type, data, actor_type, actor_id, request_id FROM events WHERE resource_id = ? ORDER BY created_at, id',
    userId,
  )
  return rows.map((r) => ({
    ...r,
    data: (typeof r.data === 'string' ? JSON.parse(r.data) : r.data) as Record<string, unknown>,
    raw: typeof r.data === 'string' ? r.data : JSON.stringify(r.data),
  }))
}

/** A user who signed in with the password and waits on /login/verify: the agent and that page. */
export async function atVerify(base: string, email: string, start = '/account') {
  const agent = new PageAgent(base)
  expect(await passwordOnAccount(agent, email, start)).toBe('/login/verify')
  const page = await (await agent.get('/login/verify')).text()
  return { agent, page }
}

/** Six digits that are none of the codes the server accepts now (the current step and one either way). */
export function wrongCode(key: Uint8Array): string {
  const accepted = new Set([-2, -1, 0, 1, 2].map((offset) => totpCode(key, offset)))
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0')
    if (!accepted.has(code)) return code
  }
}
