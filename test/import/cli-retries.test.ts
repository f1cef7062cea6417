/**
 * `api import` in this process (test/cli/harness.ts's runCli) against a real server of the
 * built-in example, through a fetch that loses a chunk's connection or answers 503 once: the chunk
 * is sent again with the same Idempotency-Key and every row is created once. And the progress line
 * as a terminal shows it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { removeTempDirs, runCli, tempDir } from '../cli/harness.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

let server: TestServer
let tenant: Tenant
let env: Record<string, string>
let dir: string

beforeAll(async () => {
  server = await startTestServer()
  tenant = await server.tenant()
  dir = tempDir('api-import-retries-')
  env = { API_URL: server.url, API_TOKEN: tenant.token, XDG_CONFIG_HOME: join(dir, 'config') }
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

function productsFile(name: string, n: number): string {
  const lines = ['name,sku,price.value,price.currency']
  for (let i = 0; i < n; i++) lines.push(`Lamp ${i},${name}-${i},${100 + i},EUR`)
  const file = join(dir, `${name}.csv`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

const failures: [string, (url: string, init?: RequestInit) => Promise<Response>][] = [
  [
    'a connection lost after the server wrote the chunk',
    async (url, init) => {
      await fetch(url, init)
      throw new TypeError('fetch failed: socket closed')
    },
  ],
  [
    'a 503 before the server saw it',
    async () => Response.json({ error: { code: 'UNAVAILABLE', message: 'starting' } }, { status: 503 }),
  ],
]

describe('api import when a chunk does not get through', () => {
  for (const [name, fail] of failures) {
    it(`${name}: sent again with its key, every row created once`, async () => {
      const tag = name.split(' ')[1]!
      const file = productsFile(tag, 30)
      let failed = false
      const run = await runCli(['import', 'products', file, '--chunk-size', '10'], {
        env,
        fetch: (input, init) => {
          const url = String(input)
          if (!failed && init?.method === 'POST' && url.endsWith('/api/v2/products')) {
            failed = true
            return fail(url, init)
          }
          return fetch(input, init)
        },
      })
      expect(run.code).toBe(0)
      const summary = JSON.parse(run.stdout) as { created: number; alreadyImported: number; chunks: number }
      expect(summary.created + summary.alreadyImported).toBe(30)
      expect(summary.chunks).toBe(3)
      const posts = run.requests.filter((r) => r.method === 'POST')
      expect(posts).toHaveLength(4)
      expect(posts[0]!.headers.get('idempotency-key')).toBe(posts[1]!.headers.get('idempotency-key'))
      const rows = await server.sql.get<{ n: number | string }>(
        'SELECT count(*) AS n FROM products WHERE org_id = ? AND sku LIKE ?',
        tenant.orgId,
        `${tag}-%`,
      )
      expect(Number(rows?.n)).toBe(30)
    })
  }
})

describe('the progress line on a terminal', () => {
  it('is redrawn in place on stderr, and the summary is a sentence on stdout', async () => {
    const file = productsFile('progress', 40)
    let clock = 0
    const run = await runCli(['import', 'products', file, '--chunk-size', '10'], {
      env,
      tty: true,
      columns: 100,
      // Each look at the clock is 200 ms later: every chunk redraws the line.
      now: () => (clock += 200),
    })
    expect(run.code).toBe(0)
    const redraws = run.stderr.split('\r').filter(Boolean)
    expect(redraws.length).toBeGreaterThanOrEqual(4)
    const last = redraws.at(-1)!
    // ESC [ K: the rest of the terminal's line cleared after each redraw.
    expect(last.endsWith('\u001b[K\n')).toBe(true)
    expect(last.slice(0, -4)).toMatch(/^\[#+\] 40 records {2}\d+\/s {2}100% {2}00:00 left$/)
    expect(run.stdout).toMatch(
      /^Imported into products: 40 created, 0 already imported \(4 chunks, [\d.]+ s, [\d,]+ records\/s\)\n$/,
    )
  })
})
