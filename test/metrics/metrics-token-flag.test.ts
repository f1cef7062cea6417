/**
 * `api-server serve --metrics-token` and `API_METRICS_TOKEN`, as an operator gives them: the token
 * opens `/metrics` to a client elsewhere, and one too short to be safe stops the start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { runAdmin, type ServeProcess, startServe } from '../admin/run.ts'

const TOKEN = 'e4b7a1c9d2f05836b1a7c4e9d0f2a3b5'
const PUBLIC = { 'X-Forwarded-For': '198.51.100.23' }

describe('api-server serve --metrics-token', () => {
  let server: ServeProcess

  beforeAll(async () => {
    server = await startServe(
      ['--port', '0', '--db', ':memory:', '--trust-proxy', '--base-url', 'https://api.test'],
      {
        env: { API_METRICS_TOKEN: TOKEN },
      },
    )
  })
  afterAll(() => server.stop())

  it('takes the token from API_METRICS_TOKEN: a client elsewhere with it reads /metrics, without it gets 404', async () => {
    const refused = await fetch(`${server.url}/metrics`, { headers: PUBLIC })
    expect(refused.status).toBe(404)
    const allowed = await fetch(`${server.url}/metrics`, {
      headers: { ...PUBLIC, Authorization: `Bearer ${TOKEN}` },
    })
    expect(allowed.status).toBe(200)
    expect(await allowed.text()).toContain('api_build_info')
    expect(server.stdout() + server.stderr()).not.toContain(TOKEN)
  })

  it.each([
    ['too short', 'short-token'],
    ['with a space', 'a token with spaces in it'],
  ])('refuses a token %s with exit 2 naming the flag', async (_, token) => {
    const run = await runAdmin(['serve', '--port', '0', '--metrics-token', token], ':memory:')
    expect(run.status).toBe(2)
    expect(run.stderr).toContain('--metrics-token must be at least 16')
    expect(run.stderr).not.toContain(token)
  })

  it('lists the flag in api-server serve --help', async () => {
    const run = await runAdmin(['serve', '--help'], null)
    expect(run.stdout).toContain('--metrics-token <token>')
    expect(run.stdout).toContain('API_METRICS_TOKEN')
  })
})
