/**
 * Three compiled `api-server` replicas on one PostgreSQL database behind nginx (Debian's), round
 * robin on loopback, with the proxy configuration docs/deployment.md gives: every request below
 * goes through the proxy, so consecutive requests land on different replicas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createClient } from 'graphql-ws'
import { Webhook } from 'standardwebhooks'
import { ROOT, type ServeProcess, startServe } from '../admin/run.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'
import { redisAvailable, startTestRedis, type TestRedis } from '../support/redis.ts'
import { type Received, startReceiver } from '../webhooks/receiver.ts'

const NGINX = '/usr/sbin/nginx'
const available =
  postgresAvailable() && redisAvailable() && (existsSync(NGINX) || process.env.CI !== undefined)
/** The quota each client and user has per minute, counted in Redis for all replicas together. */
const RATE_LIMIT = 300
const describeWithReplicas = available ? describe : describe.skip

async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const { port } = server
  server.stop(true)
  return port
}

describeWithReplicas('three replicas behind a proxy', () => {
  let dir: string
  let postgres: TestPostgres
  let redis: TestRedis
  let metered: string
  let db: string
  const replicas: ServeProcess[] = []
  let nginx: ReturnType<typeof Bun.spawn>
  let proxy: string
  let credentials: string
  let token: string

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${proxy}${path}`, { headers: { Authorization: `Bearer ${token}`, ...headers } })
  const post = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    fetch(`${proxy}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(json),
    })
  /**
   * One create, retried with its Idempotency-Key through the proxy (replicas may be down) until
   * some replica acknowledges it; returns the record's id.
   */
  const writeUntilAcknowledged = async (path: string, json: unknown, key: string): Promise<string> => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const response = await post(path, json, { 'Idempotency-Key': key }).catch(() => null)
      if (response?.status === 201) return ((await response.json()) as { id: string }).id
      await Bun.sleep(50)
    }
    throw new Error(`${key} was never acknowledged`)
  }
  const issue = async (basic = credentials) => {
    const response = await fetch(`${proxy}/oauth/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    })
    expect(response.status).toBe(200)
    return ((await response.json()) as { access_token: string }).access_token
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'api-replicas-'))
    const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', '--outdir', join(dir, 'bin')], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'pipe',
    })
    if (!build.success) throw new Error(`build failed: ${build.stderr.toString()}`)
    const server = [join(dir, 'bin', 'api-server')]
    postgres = await startTestPostgres()
    db = await postgres.database('replicas')
    const admin = (args: string[]) => {
      const run = Bun.spawnSync([...server, '--db', db, ...args, '--json'], {
        stdout: 'pipe',
        stderr: 'pipe',
      })
      if (!run.success) throw new Error(`api-server ${args.join(' ')}: ${run.stderr.toString()}`)
      return JSON.parse(run.stdout.toString())
    }
    admin(['org', 'create', '--name', 'Acme'])
    const client = admin(['client', 'create', '--name', 'svc', '--org', 'Acme'])
    credentials = btoa(`${client.client_id}:${client.client_secret}`)
    const second = admin(['client', 'create', '--name', 'metered', '--org', 'Acme'])
    metered = btoa(`${second.client_id}:${second.client_secret}`)
    redis = await startTestRedis()
    const proxyPort = await freePort()
    proxy = `http://127.0.0.1:${proxyPort}`
    // Started together: they migrate once between them (an advisory lock), the others wait.
    replicas.push(
      ...(await Promise.all(
        [0, 1, 2].map(() =>
          startServe(
            [
              '--port',
              '0',
              '--db',
              db,
              '--base-url',
              proxy,
              '--redis',
              redis.url,
              '--rate-limit',
              String(RATE_LIMIT),
              '--allow-http-webhooks',
              // As docs/deployment.md starts them: the client's address is the proxy's header.
              '--trust-proxy',
            ],
            {
              command: server,
              cwd: dir,
              // A short lease: a delivery the killed replica held is another's within seconds.
              env: {
                API_WEBHOOK_TIMINGS: JSON.stringify({ leaseMs: 2_000, attemptTimeoutMs: 1_000, pollMs: 100 }),
              },
            },
          ),
        ),
      )),
    )
    // The proxy's configuration is docs/deployment.md's, with these replicas' and the proxy's ports.
    const guide = readFileSync(join(ROOT, 'docs/deployment.md'), 'utf8')
    const documented = /```nginx\n([\s\S]*?)```/.exec(guide)?.[1]
    if (!documented) throw new Error('docs/deployment.md has no nginx configuration')
    const ports = replicas.map((r) => new URL(r.url).port)
    const site = documented
      .replace(/127\.0\.0\.1:808([1-3]);/g, (_, n: string) => `127.0.0.1:${ports[Number(n) - 1]};`)
      .replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${proxyPort};`)
    expect(site).not.toContain(':808')
    // The rest is what Debian's /etc/nginx/nginx.conf around conf.d/ gives, in the test's directory.
    writeFileSync(
      join(dir, 'nginx.conf'),
      `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${site}
}
`,
    )
    nginx = Bun.spawn([NGINX, '-p', dir, '-c', join(dir, 'nginx.conf')], { stdout: 'ignore', stderr: 'pipe' })
    const deadline = Date.now() + 10_000
    while ((await fetch(`${proxy}/healthz`).catch(() => null))?.status !== 200) {
      if (Date.now() > deadline) throw new Error('nginx did not start')
      await Bun.sleep(50)
    }
    token = await issue()
    // With Redis no replica warns that it counts limits on its own.
    for (const replica of replicas) expect(replica.stderr()).not.toContain('without --redis')
  }, 120_000)

  afterAll(async () => {
    nginx?.kill()
    await Promise.all(replicas.map((r) => r.stop()))
    await postgres?.stop()
    await redis?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('spreads requests over the replicas, and every replica reads what another wrote, with the same ETag', async () => {
    const user = await post('/api/v2/users', { name: 'Ann', email: 'ann@acme.example' })
    expect(user.status).toBe(201)
    const { id } = (await user.json()) as { id: string }
    const tags = new Set<string>()
    for (let i = 0; i < 6; i++) {
      const read = await get(`/api/v2/users/${id}`)
      expect(read.status).toBe(200)
      tags.add(read.headers.get('etag')!)
    }
    expect(tags.size).toBe(1)
    // Asked directly, every replica reads the record with that ETag, whichever one created it.
    for (const replica of replicas) {
      const read = await fetch(`${replica.url}/api/v2/users/${id}`, {
        headers: { Authorization: `Bearer ${token}` },
      })
      expect(read.status).toBe(200)
      expect(read.headers.get('etag')).toBe([...tags][0]!)
    }
  })

  it('performs an idempotent create once, whichever replicas its retries reach', async () => {
    const user = ((await (await get('/api/v2/users')).json()) as { data: { id: string }[] }).data[0]!
    const order = { userId: user.id, amount: { value: 900, currency: 'EUR' }, status: 'shipped' }
    const answers = await Promise.all(
      Array.from({ length: 9 }, () => post('/api/v2/orders', order, { 'Idempotency-Key': 'one-order' })),
    )
    const ids = new Set(await Promise.all(answers.map(async (a) => ((await a.json()) as { id: string }).id)))
    expect(ids.size).toBe(1)
    const shipped = (await (await get('/api/v2/orders?status=shipped')).json()) as { data: unknown[] }
    expect(shipped.data).toHaveLength(1)
  })

  it('passes QUERY and its body through the proxy, and serves the stored query from any replica', async () => {
    const response = await fetch(`${proxy}/api/v2/orders`, {
      method: 'QUERY',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/sql' },
      body: "SELECT * FROM orders WHERE status = 'shipped'",
    })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(1)
    const location = response.headers.get('location')!
    for (let i = 0; i < 3; i++) expect((await get(location)).status).toBe(200)
  })

  it('refuses a revoked token on every replica within a second', async () => {
    const doomed = await issue()
    expect(
      (await fetch(`${proxy}/api/v2/orders`, { headers: { Authorization: `Bearer ${doomed}` } })).status,
    ).toBe(200)
    // Warm every replica's cache with the token first.
    for (const replica of replicas)
      expect(
        (await fetch(`${replica.url}/api/v2/orders`, { headers: { Authorization: `Bearer ${doomed}` } }))
          .status,
      ).toBe(200)
    const revoked = await fetch(`${proxy}/oauth/revoke`, {
      method: 'POST',
      headers: { Authorization: `Basic ${credentials}` },
      body: new URLSearchParams({ token: doomed }),
    })
    expect(revoked.status).toBe(200)
    await Bun.sleep(1_000)
    for (const replica of replicas)
      expect(
        (await fetch(`${replica.url}/api/v2/orders`, { headers: { Authorization: `Bearer ${doomed}` } }))
          .status,
      ).toBe(401)
  })

  /** The ids of the first `count` events a subscription at `base` delivers after event `after`. */
  async function subscribed(base: string, after: string, count: number): Promise<string[]> {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: 'text/event-stream',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ query: `subscription { events(after: "${after}") { id } }` }),
    })
    const reader = response.body!.getReader()
    const ids: string[] = []
    let text = ''
    while (ids.length < count) {
      const { value, done } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
      const blocks = text.split('\n\n')
      text = blocks.pop()!
      for (const block of blocks) {
        const data = block.split('\n').find((line) => line.startsWith('data: '))
        if (!block.includes('event: next') || !data) continue
        ids.push((JSON.parse(data.slice(6)) as { data: { events: { id: string } } }).data.events.id)
      }
    }
    await reader.cancel()
    return ids
  }

  /** The same over WebSocket (graphql-transport-ws), as a browser behind the proxy subscribes. */
  async function subscribedOverWebSocket(base: string, after: string, count: number): Promise<string[]> {
    const client = createClient({
      url: `${base.replace(/^http/, 'ws')}/graphql`,
      connectionParams: { Authorization: `Bearer ${token}` },
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    })
    const ids: string[] = []
    try {
      const events = client.iterate<{ events: { id: string } }>({
        query: `subscription { events(after: "${after}") { id } }`,
      })
      for await (const result of events) {
        ids.push(result.data!.events.id)
        if (ids.length === count) break
      }
    } finally {
      await client.dispose()
    }
    return ids
  }

  it('delivers every event once, in one order, to subscribers on every replica and through the proxy, under 16 writers', async () => {
    const mark = await post('/api/v2/products', {
      name: 'Mark',
      sku: 'MARK',
      price: { value: 1, currency: 'EUR' },
    })
    const { id: markId } = (await mark.json()) as { id: string }
    const events = (await (await get(`/api/v2/events?resource_id=${markId}`)).json()) as {
      data: { id: string }[]
    }
    const after = events.data[0]!.id
    // One subscriber on each replica, and two through the proxy: server-sent events and WebSocket.
    const listening = [
      ...[...replicas.map((replica) => replica.url), proxy].map((base) => subscribed(base, after, 16)),
      subscribedOverWebSocket(proxy, after, 16),
    ]
    const writes = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        post('/api/v2/products', { name: `P${i}`, sku: `SKU-${i}`, price: { value: 100, currency: 'EUR' } }),
      ),
    )
    expect(writes.every((w) => w.status === 201)).toBe(true)
    const seen = await Promise.all(listening)
    expect(new Set(seen[0]).size).toBe(16)
    expect(seen[1]).toEqual(seen[0]!)
    expect(seen[2]).toEqual(seen[0]!)
    expect(seen[3]).toEqual(seen[0]!)
    expect(seen[4]).toEqual(seen[0]!)
  })

  it('holds one rate limit across the replicas (counted in Redis)', async () => {
    const own = await issue(metered)
    const statuses: number[] = []
    for (let i = 0; i < RATE_LIMIT + 5; i++) {
      const response = await fetch(`${proxy}/api/v2/products?limit=1`, {
        headers: { Authorization: `Bearer ${own}` },
      })
      statuses.push(response.status)
      if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    // Round robin spread these over three replicas: a quota per replica would have let them all in.
    expect(statuses.filter((s) => s === 200)).toHaveLength(RATE_LIMIT)
    expect(statuses.slice(RATE_LIMIT)).toEqual([429, 429, 429, 429, 429])
  })

  it('locks out a client after 10 wrong secrets, on every replica (the throttle counted in Redis)', async () => {
    const [id] = atob(metered).split(':')
    const wrong = btoa(`${id}:cs_wrong`)
    for (let i = 0; i < 10; i++) {
      const response = await fetch(`${proxy}/oauth/token`, {
        method: 'POST',
        headers: { Authorization: `Basic ${wrong}` },
        body: new URLSearchParams({ grant_type: 'client_credentials' }),
      })
      expect(response.status).toBe(401)
    }
    // Spread over three replicas, 10 failures are 3 or 4 each: only a shared count locks out.
    for (const replica of replicas) {
      const right = await fetch(`${replica.url}/oauth/token`, {
        method: 'POST',
        headers: { Authorization: `Basic ${metered}` },
        body: new URLSearchParams({ grant_type: 'client_credentials' }),
      })
      expect(right.status).toBe(429)
    }
  })

  it('delivers every acknowledged event to a webhook, signed, one replica at a time, when a replica is killed', async () => {
    // Each answer takes a while, so that every replica has attempts in flight when one dies.
    const receiver = startReceiver(async () => {
      await Bun.sleep(300)
      return new Response(null, { status: 204 })
    })
    try {
      const created = await post('/api/v2/webhook-endpoints', {
        url: receiver.url,
        eventTypes: ['product.created'],
      })
      expect(created.status).toBe(201)
      const endpoint = (await created.json()) as { id: string; secret: string }
      const acknowledged = new Set<string>()
      const write = async (n: number) => {
        const product = { name: `Hooked ${n}`, sku: `HOOK-${n}`, price: { value: 100 + n, currency: 'EUR' } }
        acknowledged.add(await writeUntilAcknowledged('/api/v2/products', product, `hook-${n}`))
      }
      const writers = Array.from({ length: 6 }, async (_, w) => {
        for (let i = 0; i < 8; i++) await write(w * 8 + i)
      })
      // Killed with writes acknowledged and 9 attempts in flight: a replica makes at most 4 at once
      // to one endpoint, so each of the three has some (the receiver has not answered them).
      const waitUntil = Date.now() + 20_000
      while (acknowledged.size < 12 || receiver.received.filter((r) => r.endedAt === null).length < 9) {
        if (Date.now() > waitUntil) throw new Error('never 9 attempts in flight at once')
        await Bun.sleep(5)
      }
      const killedAt = performance.now()
      replicas[1]!.proc.kill('SIGKILL')
      await Promise.all(writers)
      expect(acknowledged.size).toBe(48)

      const eventOf = new Map<string, string>()
      for (let cursor: string | null = ''; cursor !== null; ) {
        const page = (await (
          await get(`/api/v2/events?type=product.created&limit=100${cursor ? `&cursor=${cursor}` : ''}`)
        ).json()) as { data: { id: string; resourceId: string }[]; pagination: { nextCursor: string | null } }
        for (const event of page.data) eventOf.set(event.resourceId, event.id)
        cursor = page.pagination.nextCursor
      }
      for (const id of acknowledged) expect(eventOf.has(id)).toBe(true)
      const wanted = new Set([...acknowledged].map((id) => eventOf.get(id)!))
      const delivered = () => new Set(receiver.received.map((r) => r.headers['webhook-id']!))
      const deadline = Date.now() + 30_000
      while ([...wanted].some((id) => !delivered().has(id))) {
        if (Date.now() > deadline) throw new Error(`${wanted.size - delivered().size} events not delivered`)
        await Bun.sleep(50)
      }

      // The deliveries agree: each succeeded at its first recorded attempt (a cut one is not recorded).
      type Row = { eventId: string; status: string; attempts: number }
      let rows: Row[] = []
      while (rows.length < delivered().size || rows.some((row) => row.status !== 'succeeded')) {
        if (Date.now() > deadline) throw new Error(`deliveries not done: ${JSON.stringify(rows)}`)
        await Bun.sleep(100)
        const page = await get(`/api/v2/webhook-endpoints/${endpoint.id}/deliveries?limit=100`)
        rows = ((await page.json()) as { data: Row[] }).data
      }
      // Every request is signed with the endpoint's secret and carries the event its webhook-id names.
      const webhook = new Webhook(endpoint.secret)
      const requests = new Map<string, typeof receiver.received>()
      for (const request of receiver.received) {
        const event = webhook.verify(request.body, request.headers) as { id: string; data: { id: string } }
        expect(event.id).toBe(request.headers['webhook-id']!)
        expect(eventOf.get(event.data.id)).toBe(event.id)
        requests.set(event.id, [...(requests.get(event.id) ?? []), request])
      }
      // One replica at a time: no two requests of one delivery overlap, and only an attempt the
      // kill cut short was made again (by another replica, once its lease had ended).
      let madeAgain = 0
      for (const [, same] of requests) {
        expect(same.length).toBeLessThanOrEqual(2)
        if (same.length === 2) {
          const [cut, again] = same.sort((a, b) => a.startedAt - b.startedAt) as [Received, Received]
          expect(cut.startedAt).toBeLessThan(killedAt)
          expect(cut.endedAt!).toBeLessThan(again.startedAt)
          madeAgain += 1
        }
      }
      // The killed replica's attempts in flight were made again.
      expect(madeAgain).toBeGreaterThan(0)
      expect(new Set(rows.map((d) => d.eventId))).toEqual(delivered())
      for (const row of rows) expect([row.eventId, row.attempts]).toEqual([row.eventId, 1])
      // More than one replica made attempts.
      const attempting = replicas.filter((r) =>
        r
          .stdout()
          .split('\n')
          .some((line) => line.includes('"webhook delivery"') && line.includes(endpoint.id)),
      )
      expect(attempting.length).toBeGreaterThanOrEqual(2)
    } finally {
      receiver.stop()
    }
  })

  it('loses no acknowledged write and duplicates none when a replica is killed while idempotent writers retry', async () => {
    const user = ((await (await get('/api/v2/users')).json()) as { data: { id: string }[] }).data[0]!
    const acknowledged = new Set<string>()
    const write = async (n: number) => {
      const order = { userId: user.id, amount: { value: 10_000 + n, currency: 'EUR' }, status: 'cancelled' }
      acknowledged.add(await writeUntilAcknowledged('/api/v2/orders', order, `kill-${n}`))
    }
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; i < 10; i++) await write(w * 10 + i)
    })
    await Bun.sleep(100)
    replicas[0]!.proc.kill('SIGKILL')
    await Promise.all(writers)
    expect(acknowledged.size).toBe(80)
    const cancelled: string[] = []
    for (let cursor: string | null = ''; cursor !== null; ) {
      const page = (await (
        await get(`/api/v2/orders?status=cancelled&limit=100${cursor ? `&cursor=${cursor}` : ''}`)
      ).json()) as { data: { id: string }[]; pagination: { nextCursor: string | null } }
      cancelled.push(...page.data.map((o) => o.id))
      cursor = page.pagination.nextCursor
    }
    // Every acknowledged write is there exactly once, and nothing else was written.
    expect(cancelled.sort()).toEqual([...acknowledged].sort())
  })
})
