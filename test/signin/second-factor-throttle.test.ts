import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createLogger } from '../../server/ops/logger.ts'
import { type RunningServer, serve } from '../../server/serve.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { orgWithUsers, PageAgent } from '../oauth/support.ts'
import { onPostgres } from '../support/backend.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { atVerify, enrolTotp, totpCode, wrongCode } from './support.ts'

/**
 * Wrong second factors are limited per user, 5 in 15 minutes (secondFactorPerUser): in memory
 * on one server, and in Redis shared by every replica (run with `npm run test:postgres`).
 */
let server: TestServer
let second: RunningServer | undefined
let acme: Awaited<ReturnType<typeof orgWithUsers>>

beforeAll(async () => {
  server = await startTestServer()
  acme = await orgWithUsers(server, 'Acme')
  if (onPostgres && process.env.API_TEST_REDIS_URL)
    second = await serve({
      host: '127.0.0.1',
      port: 0,
      db: server.dbPath,
      baseUrl: server.url,
      schema: exampleSchema(),
      rateLimit: 1_000_000,
      logger: createLogger('error', (line) => console.error(line)),
      redis: process.env.API_TEST_REDIS_URL,
    })
})
afterAll(async () => {
  await second?.stop()
  await server.stop()
})

/** The same browser (its cookies) on another server of the same database. */
function onServer(agent: PageAgent, base: string): PageAgent {
  const moved = new PageAgent(base)
  for (const [name, value] of agent.cookies) moved.cookies.set(name, value)
  return moved
}

describe('wrong second factors', () => {
  it('lock the user after 5 in 15 minutes, even for the right code, with 429 and Retry-After; a success resets', async () => {
    const { key, codes } = await enrolTotp(server.url, acme.admin.email)
    const { agent, page } = await atVerify(server.url, acme.admin.email)
    // Four failures, then a recovery code: the count starts again.
    for (let i = 0; i < 4; i++)
      expect((await agent.submit(page, 'totp', { code: wrongCode(key) })).status).toBe(401)
    expect((await agent.submit(page, 'recovery', { recovery_code: codes[0]! })).status).toBe(303)
    const again = await atVerify(server.url, acme.admin.email)
    // Wrong codes and wrong recovery codes count together.
    for (let i = 0; i < 5; i++) {
      const [step, fields]: [string, Record<string, string>] =
        i % 2 === 0 ? ['totp', { code: wrongCode(key) }] : ['recovery', { recovery_code: 'aaaaa-aaaaa' }]
      expect((await again.agent.submit(again.page, step, fields)).status).toBe(401)
    }
    const locked = await again.agent.submit(again.page, 'totp', { code: totpCode(key, 1) })
    expect(locked.status).toBe(429)
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800)
    expect(again.agent.cookies.has('oauth_login')).toBe(false)
  })

  it.skipIf(!onPostgres)('count across two servers on one PostgreSQL and Redis', async () => {
    const { key } = await enrolTotp(server.url, acme.member.email)
    const { agent, page } = await atVerify(server.url, acme.member.email)
    const other = onServer(agent, second!.url)
    const otherPage = await (await other.get('/login/verify')).text()
    for (let i = 0; i < 5; i++) {
      const [who, form] = i % 2 === 0 ? [agent, page] : [other, otherPage]
      expect((await who.submit(form, 'totp', { code: wrongCode(key) })).status).toBe(401)
    }
    expect((await other.submit(otherPage, 'totp', { code: totpCode(key, 1) })).status).toBe(429)
    expect((await agent.submit(page, 'totp', { code: totpCode(key, 1) })).status).toBe(429)
  })
})
