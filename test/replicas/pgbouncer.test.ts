/**
 * Replicas behind PgBouncer in transaction mode (Debian's `pgbouncer`), as docs/deployment.md
 * sets them up: `--db` through the pooler with `?prepare=false`, `--db-listen` straight to
 * PostgreSQL for the change notifications, which need a session of their own. Without
 * `--db-listen` a replica never hears the others' writes, and a token revoked on one is still
 * taken by the other: the second case shows the flag is what makes the first pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { runOk, type ServeProcess, startServe } from '../admin/run.ts'
import { type Pgbouncer, pgbouncerAvailable, startPgbouncer } from '../support/pgbouncer.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'
import { clientToken } from '../support/tokens.ts'

const describeWithPgbouncer = postgresAvailable() && pgbouncerAvailable() ? describe : describe.skip
const ISSUER = 'http://api.test'

describeWithPgbouncer('replicas through PgBouncer in transaction mode', () => {
  let postgres: TestPostgres
  let direct: string
  let bouncer: Pgbouncer
  let client: { client_id: string; client_secret: string }
  const servers: ServeProcess[] = []

  beforeAll(async () => {
    postgres = await startTestPostgres()
    direct = await postgres.database(`bouncer_${crypto.randomUUID().slice(0, 8)}`)
    await runOk(['migrate'], direct)
    const org = JSON.parse(await runOk(['org', 'create', '--name', 'Pooled', '--json'], direct)).id
    client = JSON.parse(await runOk(['client', 'create', '--name', 'c', '--org', org, '--json'], direct))
    bouncer = await startPgbouncer(direct, { mode: 'transaction', poolSize: 20 })
  }, 60_000)
  afterAll(async () => {
    for (const server of servers) await server.stop()
    await bouncer?.stop()
    await postgres?.stop()
  })

  /**
   * Two replicas on the pooler, with one issuer so that each takes the other's tokens. Returned once
   * both have run their first housekeeping (a second after start, then every minute; 3 s leaves
   * room for a loaded machine): its purge is a write of their own, which empties their caches, and
   * would hide what the notifications do.
   */
  async function replicas(extra: string[]): Promise<[ServeProcess, ServeProcess]> {
    const args = ['--port', '0', '--db', `${bouncer.url}?prepare=false`, '--base-url', ISSUER, ...extra]
    const pair = [await startServe(args), await startServe(args)] as [ServeProcess, ServeProcess]
    servers.push(...pair)
    await Bun.sleep(3_000)
    return pair
  }

  const token = (server: ServeProcess) =>
    clientToken(server.url, { id: client.client_id, secret: client.client_secret })
  const users = (server: ServeProcess, bearer: string) =>
    fetch(`${server.url}/api/v2/users`, { headers: { Authorization: `Bearer ${bearer}` } })
  const revoke = (server: ServeProcess, bearer: string) =>
    fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
      },
      body: `token=${bearer}`,
    })
  /** Milliseconds until `server` refuses `bearer`, or null when it still takes it after `limitMs`. */
  async function refusedWithin(
    server: ServeProcess,
    bearer: string,
    limitMs: number,
  ): Promise<number | null> {
    const started = Date.now()
    while (Date.now() - started < limitMs) {
      if ((await users(server, bearer)).status === 401) return Date.now() - started
      await Bun.sleep(20)
    }
    return null
  }

  it('with --db-listen: reads and writes through the pooler, and a revocation on one replica reaches the other within 1 s', async () => {
    const [a, b] = await replicas(['--db-listen', direct])
    const bearer = await token(a)
    // 200 concurrent reads over both replicas, each a transaction on whichever server connection.
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => users(i % 2 ? b : a, bearer).then((r) => r.status)),
    )
    expect(statuses.filter((s) => s !== 200)).toEqual([])
    // A write on one is read on the other at once.
    const created = await fetch(`${a.url}/api/v2/users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Pia', email: 'pia@pooled.example', role: 'member' }),
    })
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const read = await fetch(`${b.url}/api/v2/users/${id}`, {
      headers: { Authorization: `Bearer ${bearer}` },
    })
    expect(read.status).toBe(200)
    // B has taken the token (and keeps that answer) before A revokes it.
    expect((await users(b, bearer)).status).toBe(200)
    expect((await revoke(a, bearer)).status).toBe(200)
    const after = await refusedWithin(b, bearer, 1_000)
    expect(after).not.toBeNull()
  }, 60_000)

  it('without --db-listen the other replica does not hear of the revocation (why the flag exists)', async () => {
    const [a, b] = await replicas([])
    const bearer = await token(a)
    expect((await users(b, bearer)).status).toBe(200)
    expect((await revoke(a, bearer)).status).toBe(200)
    expect(await refusedWithin(b, bearer, 2_000)).toBeNull()
  }, 60_000)

  it('refuses --db-listen that is not a postgres:// URL, or with a SQLite --db (exit 2)', async () => {
    const notUrl = Bun.spawnSync(
      [process.execPath, 'server/main.ts', 'serve', '--db', direct, '--db-listen', 'localhost:5432'],
      { cwd: `${import.meta.dir}/../..`, env: { ...process.env, API_DB: undefined } },
    )
    expect(notUrl.exitCode).toBe(2)
    expect(notUrl.stderr.toString()).toContain('--db-listen must be a postgres:// URL')
    const sqlite = Bun.spawnSync(
      [process.execPath, 'server/main.ts', 'serve', '--db', ':memory:', '--db-listen', direct],
      { cwd: `${import.meta.dir}/../..`, env: { ...process.env, API_DB: undefined } },
    )
    expect(sqlite.exitCode).toBe(2)
    expect(sqlite.stderr.toString()).toContain('given with a postgres:// --db')
  })
})
