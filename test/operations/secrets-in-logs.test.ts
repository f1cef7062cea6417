import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { runAdmin } from '../admin/run.ts'
import { answerDevicePrompt, authorizeByHttp, basicAuth, PageAgent, pkce } from '../oauth/support.ts'
import { removeServerDir, type ServerProcess, startServerProcess } from './server-process.ts'

/**
 * Sends a password, client secrets and every kind of token through every endpoint family of a
 * server logging at debug level, then searches all it wrote (standard output and error, and the
 * admin commands' output) for them.
 */
let server: ServerProcess
const secrets = new Map<string, string>()
const adminOutput: string[] = []
const PASSWORD = 'Pw-never-in-logs-7f3a9c'
const REDIRECT = 'http://127.0.0.1/callback'

beforeAll(async () => {
  server = await startServerProcess(['--log-level', 'debug'])
})
afterAll(async () => {
  await server.stop()
  removeServerDir(server)
})

async function form(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  })
  return {
    status: response.status,
    body: (await response.json().catch(() => ({}))) as Record<string, string>,
  }
}

describe('no token, secret or password in any log line', () => {
  it('after driving every endpoint family with them', async () => {
    const admin = async (args: string[]) => {
      const run = await runAdmin(args, server.db)
      // `client create` shows the new secret once, by design; everything else must not echo one.
      adminOutput.push(args[0] === 'client' ? run.stderr : run.stdout, run.stderr)
      if (run.status !== 0) throw new Error(`${args.join(' ')}: ${run.stderr}`)
      return run.stdout
    }
    const org = JSON.parse(await admin(['org', 'create', '--name', 'Secrets', '--json'])).id
    await admin([
      'user',
      'create',
      '--org',
      org,
      '--email',
      'ann@secrets.example',
      '--name',
      'Ann',
      '--role',
      'admin',
      '--password',
      PASSWORD,
    ])
    secrets.set('password', PASSWORD)
    const created = JSON.parse(
      await admin([
        'client',
        'create',
        '--name',
        'app',
        '--org',
        org,
        '--json',
        '--redirect-uri',
        REDIRECT,
        '--grant-types',
        'authorization_code,refresh_token,client_credentials,urn:ietf:params:oauth:grant-type:device_code',
      ]),
    ) as { client_id: string; client_secret: string }
    const { client_id: clientId, client_secret: clientSecret } = created
    secrets.set('client secret', clientSecret)

    // Client credentials, with HTTP Basic and with the secret in the form.
    const basic = await form(
      '/oauth/token',
      { grant_type: 'client_credentials' },
      { Authorization: basicAuth(clientId, clientSecret) },
    )
    expect(basic.status).toBe(200)
    secrets.set('access token (basic)', basic.body.access_token!)
    const post = await form('/oauth/token', {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    })
    expect(post.status).toBe(200)
    const token = post.body.access_token!
    secrets.set('access token (post)', token)
    // A wrong secret too: failures are where secrets most often end up in logs.
    await form('/oauth/token', {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: `${clientSecret}x`,
    })

    // Authorization code with PKCE through the login page (the password) and the consent page.
    const { verifier, challenge, state } = await pkce()
    secrets.set('code verifier', verifier)
    const authorize = `${server.url}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    })}`
    const agent = new PageAgent(server.url)
    const callback = new URL(
      await authorizeByHttp(agent, authorize, { email: 'ann@secrets.example', password: PASSWORD }),
    )
    const code = callback.searchParams.get('code')!
    expect(code).toStartWith('ac_')
    secrets.set('authorization code', code)
    // A failed login with another password as well.
    const wrong = `${PASSWORD}-wrong`
    secrets.set('wrong password', wrong)
    const again = new PageAgent(server.url)
    const loginPage = await (await again.get(authorize)).text()
    expect(
      (await again.submit(loginPage, 'login', { email: 'ann@secrets.example', password: wrong })).status,
    ).toBe(401)
    for (const cookie of [...agent.cookies.values(), ...again.cookies.values()])
      secrets.set(`cookie ${cookie.slice(0, 8)}`, cookie)

    const exchanged = await form(
      '/oauth/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { Authorization: basicAuth(clientId, clientSecret) },
    )
    expect(exchanged.status).toBe(200)
    secrets.set('user access token', exchanged.body.access_token!)
    secrets.set('refresh token', exchanged.body.refresh_token!)
    const refreshed = await form(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token! },
      { Authorization: basicAuth(clientId, clientSecret) },
    )
    expect(refreshed.status).toBe(200)
    secrets.set('rotated refresh token', refreshed.body.refresh_token!)
    secrets.set('refreshed access token', refreshed.body.access_token!)

    // Device flow: device code and user code, approved on the /device pages.
    const device = await form('/oauth/device_authorization', {
      client_id: clientId,
      client_secret: clientSecret,
    })
    expect(device.status).toBe(200)
    secrets.set('device code', device.body.device_code!)
    await answerDevicePrompt(new PageAgent(server.url), device.body.user_code!, 'ann@secrets.example').catch(
      () => {},
    )
    await form('/oauth/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: device.body.device_code!,
      client_id: clientId,
      client_secret: clientSecret,
    })

    // The API, both versions, with the bearer token (and a bad one), through every front door.
    const auth = { Authorization: `Bearer ${token}` }
    const user = (await (
      await fetch(`${server.url}/api/v2/users`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Bo', email: 'bo@secrets.example' }),
      })
    ).json()) as { id: string }
    const requests: [string, RequestInit][] = [
      ['/api/v1/orders', { headers: auth }],
      [`/api/v2/users/${user.id}`, { headers: auth }],
      [
        `/api/v2/users/${user.id}`,
        {
          method: 'PATCH',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: '{"name": "Bob"}',
        },
      ],
      ['/api/v1/search?q=bo', { headers: auth }],
      [
        '/api/v2/orders',
        {
          method: 'QUERY',
          headers: { ...auth, 'Content-Type': 'application/sql' },
          body: 'SELECT * FROM orders',
        },
      ],
      [
        '/graphql',
        {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: '{"query": "{ users { totalCount } }"}',
        },
      ],
      ['/api/v1/orders', { headers: { Authorization: `Bearer ${token.slice(0, -4)}AAAA` } }],
      ['/api/v1/orders', { headers: { Authorization: `Basic ${btoa(`${clientId}:${clientSecret}`)}` } }],
      [`/api/v1/orders?access_token=${token}`, {}],
      // A request id the client makes up is echoed and logged: glued to a prefix, a secret in it
      // still has to be masked.
      ['/api/v1/orders', { headers: { ...auth, 'X-Request-Id': `x${token}` } }],
      ['/api/v1/orders', { headers: { ...auth, 'X-Request-Id': `x${exchanged.body.refresh_token}` } }],
      [`/api/v1/x${exchanged.body.refresh_token}`, { headers: auth }],
    ]
    for (const [path, init] of requests) await fetch(`${server.url}${path}`, init)
    // A 500 (a table moved away under the server): its stack goes to the log, with the token near.
    const side = new Database(server.db)
    side.run('ALTER TABLE comments RENAME TO comments_elsewhere')
    const failed = await fetch(`${server.url}/api/v2/comments`, { headers: auth })
    side.run('ALTER TABLE comments_elsewhere RENAME TO comments')
    side.close()
    expect(failed.status).toBe(500)
    const query = await fetch(`${server.url}/api/v2/orders`, {
      method: 'QUERY',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{}',
    })
    const result = query.headers.get('content-location')!
    secrets.set('stored result token', result.split('/').at(-1)!)
    await fetch(`${server.url}${result}`, { headers: auth })

    // Introspection and revocation of every token.
    const client = { Authorization: basicAuth(clientId, clientSecret) }
    await form('/oauth/introspect', { token: refreshed.body.access_token! }, client)
    await form('/oauth/introspect', { token: refreshed.body.refresh_token! }, client)
    await form('/oauth/revoke', { token: refreshed.body.refresh_token! }, client)
    await form('/oauth/revoke', { token }, client)
    // A reused (rotated) refresh token: the reuse-detection path.
    await form(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token! },
      client,
    )
    await Bun.sleep(200)
  }, 60_000)

  it('the whole log holds none of them, and every line is JSON', async () => {
    await server.stop()
    const log = server.output()
    const lines = log.split('\n').filter((l) => l.trim() !== '')
    expect(lines.filter((l) => l.startsWith('{')).length).toBeGreaterThan(30)
    expect(log).toContain('"msg":"unexpected error"')
    for (const line of lines.filter((l) => l.startsWith('{'))) expect(() => JSON.parse(line)).not.toThrow()
    const everything = `${log}\n${adminOutput.join('\n')}`
    expect(secrets.size).toBeGreaterThan(12)
    for (const [what, value] of secrets) {
      expect(value.length).toBeGreaterThan(6)
      if (everything.includes(value)) throw new Error(`the ${what} appears in the log`)
    }
  })
})
