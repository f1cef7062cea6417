import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { createUser } from '../../server/admin/users.ts'
import { hashToken } from '../../server/crypto/token-hash.ts'
import { createLogger } from '../../server/ops/logger.ts'
import type { Store } from '../../server/store/store.ts'
import { isoNow } from '../../shared/time.ts'
import { JSON_TYPE, query } from '../query-method/support.ts'
import type { TestSql } from '../support/backend.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** A short timer, so that a test sees several runs within a second. */
const QUICKLY = { everyMs: 50, firstAfterMs: 50 }

const count = async (db: TestSql, sql: string, ...params: string[]) =>
  Number(((await db.get(`SELECT count(*) AS n FROM ${sql}`, ...params)) as { n: number }).n)

// Generous: on a loaded machine (PostgreSQL, two cores shared) a run can take a while to come round.
async function until(done: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await Bun.sleep(25)
  }
}

/** An organization with a user and a public client that may use every user grant, made in the store. */
async function oauthParties(store: Store, name: string) {
  const org = await store.orgs.create(name)
  const user = await createUser(store, {
    org: org.id,
    email: `ann@${name.toLowerCase()}.example`,
    name: 'Ann',
    role: 'admin',
    password: 'correct horse battery',
  })
  const { client } = await store.clients.create({
    name: 'App',
    orgId: org.id,
    public: true,
    redirectUris: ['http://127.0.0.1/callback'],
    grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
  })
  return { orgId: org.id, userId: user.id, clientId: client.id }
}

describe('housekeeping (every expiry on one timer, no request needed)', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({ housekeeping: { ...QUICKLY, limit: 1_000 } })
  })
  afterAll(() => server.stop())

  it('deletes every kind of expired row and keeps the live ones', async () => {
    const { sql: db, store } = server
    const tenant = await server.tenant()
    const { orgId, userId, clientId } = await oauthParties(store, 'Expiry')
    const now = Date.now()

    // Idempotency keys: kept 24 hours (contract), made by real requests.
    for (const key of ['key-old', 'key-new']) {
      const response = await tenant.fetch('/api/v1/users', {
        method: 'POST',
        headers: { 'Idempotency-Key': key },
        json: { name: key, email: `${key}@example.com` },
      })
      expect(response.status).toBe(201)
    }
    await db.run("UPDATE idempotency_keys SET created_at = ? WHERE key = 'key-old'", isoNow(now - 25 * HOUR))

    const code = (name: string, expiresAt: number) =>
      store.codes.insert(
        name,
        {
          orgId,
          clientId,
          userId,
          redirectUri: 'http://127.0.0.1/callback',
          codeChallenge: null,
          scope: [],
          expiresAt,
        },
        expiresAt - 10 * MINUTE,
      )
    await code('ac_expired_a_day_ago', now - 25 * HOUR)
    await code('ac_expired_an_hour_ago', now - HOUR) // kept a day, so that a late reuse is still seen as reuse
    await code('ac_live', now + 10 * MINUTE)

    const device = (name: string, userCode: string, expiresAt: number) =>
      store.deviceCodes.insert(
        name,
        { userCode, clientId, requestedScope: null, interval: 5, expiresAt },
        expiresAt - 10 * MINUTE,
      )
    await device('dc_expired_a_day_ago', 'BBBBBBBB', now - 25 * HOUR)
    await device('dc_expired_an_hour_ago', 'CCCCCCCC', now - HOUR)
    await device('dc_live', 'DDDDDDDD', now + 10 * MINUTE)

    const grant = (createdAt: number, expiresAt: number) =>
      store.grants.create({ orgId, clientId, userId, scope: ['read:users'], expiresAt }, createdAt)
    const pastAbsolute = await grant(now - 91 * DAY, now - 2 * HOUR)
    const justPastAbsolute = await grant(now - 90 * DAY, now - 30 * MINUTE) // its last access token may still run
    const revokedLongAgo = await grant(now - 10 * DAY, now + 80 * DAY)
    await store.grants.revoke(revokedLongAgo.id, now - 2 * HOUR)
    const revokedJustNow = await grant(now - 10 * DAY, now + 80 * DAY)
    await store.grants.revoke(revokedJustNow.id, now - 10 * MINUTE)
    const idle = await grant(now - 40 * DAY, now + 50 * DAY)
    await store.grants.insertRefreshToken('rt_idle', idle, now - 10 * DAY, now - 40 * DAY)
    const live = await grant(now - 31 * DAY, now + 59 * DAY)
    await store.grants.insertRefreshToken(
      'rt_rotated_long_ago',
      live,
      now - 2 * HOUR,
      now - 30 * DAY - 2 * HOUR,
    )
    await store.grants.insertRefreshToken(
      'rt_rotated_recently',
      live,
      now - 10 * MINUTE,
      now - 30 * DAY - 10 * MINUTE,
    )
    await store.grants.insertRefreshToken('rt_live', live, now + 29 * DAY, now - DAY)

    await store.revocations.revoke('jti-expired', orgId, now - MINUTE, now - HOUR)
    await store.revocations.revoke('jti-live', orgId, now + 30 * MINUTE, now - 30 * MINUTE)

    const stored = (id: string, usedAt: number) =>
      store.queries.save(
        {
          id,
          orgId,
          createdBy: userId,
          target: '/api/v1/users',
          mediaType: JSON_TYPE,
          body: id,
          requestHash: id,
        },
        usedAt,
      )
    await stored('qry_unused_31_days', now - 31 * DAY)
    const used = await stored('qry_used_yesterday', now - DAY)
    const result = (token: string, expiresAt: number) =>
      store.queries.saveResult(
        token,
        { queryId: used.id, orgId, headers: {}, body: '[]', expiresAt: isoNow(expiresAt) },
        expiresAt - 10 * MINUTE,
      )
    await result('result-expired', now - MINUTE)
    await result('result-live', now + 5 * MINUTE)

    const present = {
      idempotencyKey: async (key: string) => (await count(db, 'idempotency_keys WHERE key = ?', key)) === 1,
      code: async (name: string) =>
        (await count(db, 'oauth_authorization_codes WHERE hash = ?', hashToken(name))) === 1,
      device: async (name: string) =>
        (await count(db, 'oauth_device_codes WHERE hash = ?', hashToken(name))) === 1,
      grant: async (id: string) => (await count(db, 'oauth_grants WHERE id = ?', id)) === 1,
      refresh: async (name: string) =>
        (await count(db, 'oauth_refresh_tokens WHERE hash = ?', hashToken(name))) === 1,
      revocation: async (jti: string) => (await count(db, 'oauth_revoked_tokens WHERE jti = ?', jti)) === 1,
      query: async (id: string) => (await count(db, 'stored_queries WHERE id = ?', id)) === 1,
      result: async (token: string) => (await count(db, 'query_results WHERE token_hash = ?', token)) === 1,
    }
    const expired = [
      () => present.idempotencyKey('key-old'),
      () => present.code('ac_expired_a_day_ago'),
      () => present.device('dc_expired_a_day_ago'),
      () => present.grant(pastAbsolute.id),
      () => present.grant(revokedLongAgo.id),
      () => present.grant(idle.id),
      () => present.refresh('rt_idle'),
      () => present.refresh('rt_rotated_long_ago'),
      () => present.revocation('jti-expired'),
      () => present.query('qry_unused_31_days'),
      () => present.result('result-expired'),
    ]
    await until(
      async () => (await Promise.all(expired.map((isPresent) => isPresent()))).every((p) => !p),
      'every expired row is gone',
    )
    await Bun.sleep(200) // a few more runs, which must leave the rest alone

    expect(await present.idempotencyKey('key-new')).toBe(true)
    expect(await present.code('ac_expired_an_hour_ago')).toBe(true)
    expect(await present.code('ac_live')).toBe(true)
    expect(await present.device('dc_expired_an_hour_ago')).toBe(true)
    expect(await present.device('dc_live')).toBe(true)
    expect(await present.grant(justPastAbsolute.id)).toBe(true)
    expect(await present.grant(revokedJustNow.id)).toBe(true)
    expect(await present.grant(live.id)).toBe(true)
    expect(await present.refresh('rt_rotated_recently')).toBe(true)
    expect(await present.refresh('rt_live')).toBe(true)
    expect(await present.revocation('jti-live')).toBe(true)
    expect(await present.query('qry_used_yesterday')).toBe(true)
    expect(await present.result('result-live')).toBe(true)
    // Its waits allow 10 s on a loaded machine; the test's own limit must not be shorter.
  }, 30_000)
})

describe('housekeeping work per run', () => {
  let server: TestServer
  const lines: Record<string, unknown>[] = []
  beforeAll(async () => {
    server = await startTestServer({
      housekeeping: { ...QUICKLY, limit: 3 },
      logger: createLogger('info', (line) => lines.push(JSON.parse(line))),
    })
  })
  afterAll(() => server.stop())

  const runs = (kind: string) =>
    lines
      .filter((line) => line.msg === 'housekeeping')
      .map((line) => (line.deleted as Record<string, number>)[kind])
      .filter((n) => n !== undefined)

  it('deletes at most the limit of each kind per run, leaving the rest to later runs', async () => {
    const { sql: db, store } = server
    const org = await store.orgs.create('Bounded')
    const now = Date.now()
    await store.transaction(async (tx) => {
      for (let i = 0; i < 7; i++) await tx.revocations.revoke(`jti-${i}`, org.id, now - MINUTE, now - HOUR)
    })

    await until(async () => (await count(db, 'oauth_revoked_tokens')) === 0, 'every revocation is gone')
    expect(runs('revokedTokens')).toEqual([3, 3, 1])
  })

  it('logs a kind that fails, goes on with the others, and tries it again on the next run', async () => {
    const { sql: db, store } = server
    const org = await store.orgs.create('Failing')
    const now = Date.now()
    await db.run('ALTER TABLE oauth_revoked_tokens RENAME TO revoked_elsewhere')
    await db.run(
      'INSERT INTO revoked_elsewhere (jti, org_id, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      ['jti-while-failing', org.id, isoNow(now - MINUTE), isoNow(now - HOUR), isoNow(now - HOUR)],
    )
    const failed = async () =>
      lines.some(
        (line) => line.level === 'error' && line.job === 'housekeeping' && line.kind === 'revokedTokens',
      )
    await until(failed, 'the failing kind is logged')
    await store.queries.save(
      {
        id: 'qry_unused',
        orgId: org.id,
        createdBy: 'usr_x',
        target: '/api/v1/users',
        mediaType: JSON_TYPE,
        body: '{}',
        requestHash: 'unused',
      },
      now - 31 * DAY,
    )
    await until(async () => (await count(db, 'stored_queries')) === 0, 'the other kinds are still purged')

    await db.run('ALTER TABLE revoked_elsewhere RENAME TO oauth_revoked_tokens')
    await until(
      async () => (await count(db, 'oauth_revoked_tokens')) === 0,
      'the kind is purged once it works again',
    )
  })
})

describe('a stored query past its 30 days that housekeeping has not reached yet', () => {
  let server: TestServer
  beforeAll(async () => {
    // No run during this test: the lookup alone must refuse it.
    server = await startTestServer({ housekeeping: { firstAfterMs: HOUR } })
  })
  afterAll(() => server.stop())

  it('is 404 on GET, and the same QUERY stores a new one under another Location', async () => {
    const tenant = await server.tenant()
    const first = await query(tenant, '/api/v1/users', JSON_TYPE, '{"sort": "name"}')
    expect(first.status).toBe(200)
    const location = first.headers.get('location')!
    expect((await tenant.fetch(location)).status).toBe(200)

    await server.sql.run('UPDATE stored_queries SET updated_at = ?', [isoNow(Date.now() - 31 * DAY)])
    const expired = await tenant.fetch(location)
    expect(expired.status).toBe(404)
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND')

    const again = await query(tenant, '/api/v1/users', JSON_TYPE, '{"sort": "name"}')
    expect(again.status).toBe(200)
    const renewed = again.headers.get('location')!
    expect(renewed).not.toBe(location)
    expect((await tenant.fetch(renewed)).status).toBe(200)
    expect((await tenant.fetch(location)).status).toBe(404)
  })
})
