/**
 * HTTPS served by `api-server serve` itself (docs/operations.md, "HTTPS"): the contract's refusal
 * of plain HTTP beyond loopback, certificate and key files checked at start, HSTS, an https
 * issuer, and the CLI trusting a private CA through API_CA_CERT. Certificates come from openssl.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { publicHost } from '../../server/http/public-host.ts'
import { BUN, CLI, spawnCli } from '../cli/harness.ts'
import { makeTestCertificates, type TestCertificates } from '../support/tls.ts'
import { runAdmin, runOk, type ServeProcess, startServe } from './run.ts'

/** Whether this machine has ::1 to listen on (a container may have IPv4 only). */
const IPV6_LOOPBACK = Object.values(networkInterfaces()).some((addresses) =>
  addresses?.some((a) => a.address === '::1'),
)

let certs: TestCertificates
let dir: string
let n = 0
const newDb = () => join(dir, `tls-${++n}.db`)

beforeAll(() => {
  certs = makeTestCertificates()
  dir = mkdtempSync(join(tmpdir(), 'api-tls-db-'))
})
afterAll(() => {
  rmSync(certs.dir, { recursive: true, force: true })
  rmSync(dir, { recursive: true, force: true })
})

/** A run that must end at once: a server that starts instead would serve until killed. */
const runServe = (args: string[], db: string, env: Record<string, string | undefined> = {}) =>
  runAdmin(['serve', '--port', '0', ...args], db, { timeoutMs: 15_000, env })

/** One line on stderr, nothing on stdout, and no database made: it refused before starting. */
function expectRefusedBeforeStart(run: { stdout: string; stderr: string }, db: string): string {
  expect(run.stdout).toBe('')
  expect(run.stderr).toEndWith('\n')
  expect(run.stderr.trimEnd().split('\n')).toHaveLength(1)
  expect(existsSync(db)).toBe(false)
  return run.stderr
}

describe('api-server serve without TLS beyond loopback (bearer tokens travel over HTTPS only)', () => {
  it.each(['0.0.0.0', '::', '192.0.2.10', '::ffff:192.0.2.10', '127.0.0.1.nip.io', 'localhost.example'])(
    'refuses --host %s without --tls-cert, --trust-proxy or --insecure-http: exit 2, one line naming the ways out',
    async (host) => {
      const db = newDb()
      const run = await runServe(['--host', host], db)
      expect(run.status).toBe(2)
      const line = expectRefusedBeforeStart(run, db)
      expect(line).toStartWith(`api-server: refusing to serve plain HTTP on ${host}: `)
      for (const flag of ['--tls-cert', '--tls-key', '--trust-proxy', '--insecure-http'])
        expect(line).toContain(flag)
    },
  )

  it.each(['127.0.0.2', 'localhost', ...(IPV6_LOOPBACK ? ['::1'] : [])])(
    'serves plain HTTP on the loopback address %s with no flag and no warning',
    async (host) => {
      const server = await startServe(['--host', host, '--port', '0', '--db', newDb()])
      try {
        expect(server.url).toStartWith('http://')
        expect(server.stderr()).not.toContain('warning')
        expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
      } finally {
        expect(await server.stop()).toBe(0)
      }
    },
  )

  it('refuses a HOST from the environment just the same', async () => {
    const db = newDb()
    const run = await runServe([], db, { HOST: '0.0.0.0' })
    expect(run.status).toBe(2)
    expect(expectRefusedBeforeStart(run, db)).toStartWith(
      'api-server: refusing to serve plain HTTP on 0.0.0.0',
    )
  })

  it('serves plain HTTP on 0.0.0.0 with --insecure-http, and warns about it on stderr', async () => {
    const server = await startServe(['--host', '0.0.0.0', '--port', '0', '--insecure-http', '--db', newDb()])
    try {
      expect(server.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/)
      expect(server.stderr()).toContain('warning: plain HTTP on 0.0.0.0 (--insecure-http)')
      const port = new URL(server.url).port
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })

  it('serves on 0.0.0.0 with --trust-proxy (a proxy in front terminates TLS), warning without --base-url', async () => {
    const server = await startServe(['--host', '0.0.0.0', '--port', '0', '--trust-proxy', '--db', newDb()])
    try {
      expect(server.stderr()).toContain('warning: --trust-proxy without --base-url')
      const port = new URL(server.url).port
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })
})

describe('api-server serve with a certificate or key it cannot use', () => {
  const cases: [string, () => { args: string[]; env?: Record<string, string> }, RegExp][] = [
    [
      'a certificate file that does not exist',
      () => ({ args: ['--tls-cert', join(certs.dir, 'nothing.pem'), '--tls-key', certs.key] }),
      /^api-server: the TLS certificate \S+\/nothing\.pem does not exist$/,
    ],
    [
      'a key file that does not exist (API_TLS_KEY)',
      () => ({ args: [], env: { API_TLS_CERT: certs.cert, API_TLS_KEY: join(certs.dir, 'nothing.key') } }),
      /^api-server: the TLS key \S+\/nothing\.key does not exist$/,
    ],
    [
      'a certificate file that is not a certificate (a key)',
      () => ({ args: ['--tls-cert', certs.otherKey, '--tls-key', certs.key] }),
      /^api-server: the TLS certificate \S+\/other\.key is not a PEM certificate$/,
    ],
    [
      'a key file that is not a key (a certificate)',
      () => ({ args: ['--tls-cert', certs.cert, '--tls-key', certs.caCert] }),
      /^api-server: the TLS key \S+\/ca\.pem is not an unencrypted PEM private key$/,
    ],
    [
      "a key that is not the certificate's",
      () => ({ args: ['--tls-cert', certs.cert, '--tls-key', certs.otherKey] }),
      /^api-server: the TLS key \S+\/other\.key does not belong to the certificate \S+\/server\.pem$/,
    ],
  ]

  it.each(cases)('fails at start on %s: exit 1, one line naming the file', async (_, given, reason) => {
    const db = newDb()
    const { args, env } = given()
    const run = await runServe(args, db, env)
    expect(run.status).toBe(1)
    expect(expectRefusedBeforeStart(run, db).trimEnd()).toMatch(reason)
  })

  it('fails at start on a key file it may not read: exit 1, one line naming the file', async () => {
    const key = join(dir, 'unreadable.key')
    copyFileSync(certs.key, key)
    chmodSync(key, 0o000)
    const cert = join(dir, 'readable.pem')
    copyFileSync(certs.cert, cert)
    chmodSync(cert, 0o644)
    chmodSync(dir, 0o777)
    const db = newDb()
    const run = await runAdmin(['serve', '--port', '0', '--tls-cert', cert, '--tls-key', key], db, {
      unprivileged: true,
      timeoutMs: 15_000,
    })
    expect(run.status).toBe(1)
    expect(expectRefusedBeforeStart(run, db)).toBe(
      `api-server: the TLS key ${key} cannot be read (permission denied)\n`,
    )
  })

  it('exits 2 on --tls-cert without --tls-key, and the other way round', async () => {
    for (const args of [
      ['--tls-cert', 'cert.pem'],
      ['--tls-key', 'key.pem'],
    ]) {
      const db = newDb()
      const run = await runServe(args, db)
      expect(run.status).toBe(2)
      expect(expectRefusedBeforeStart(run, db)).toBe(
        'api-server: --tls-cert and --tls-key go together (env API_TLS_CERT, API_TLS_KEY)\n',
      )
    }
  })
})

describe('api-server serve --tls-cert --tls-key', () => {
  let server: ServeProcess
  let db: string
  const trusted = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, tls: { ca: readFileSync(certs.caCert, 'utf8') } })

  beforeAll(async () => {
    db = newDb()
    server = await startServe(['--port', '0', '--db', db, '--tls-cert', certs.cert, '--tls-key', certs.key])
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('listens on https and says so, with how the CLI trusts a private CA', async () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    // The next steps follow the line startServe waits for; on a busy machine a moment later.
    for (let i = 0; i < 100 && !server.stderr().includes('private CA'); i++) await Bun.sleep(50)
    expect(server.stderr()).toContain(`API_URL=${server.url} npm run -s api -- login`)
    expect(server.stderr()).toContain(
      `If the certificate is from a private CA, give the CLI its certificate: API_URL=${server.url} API_CA_CERT=ca.pem npm run -s api -- login`,
    )
  })

  it('sends Strict-Transport-Security on every response: a page, an error, a preflight, the metadata', async () => {
    for (const [path, method, status] of [
      ['/docs', 'GET', 200],
      ['/api/v1/orders', 'GET', 401],
      ['/oauth/token', 'OPTIONS', 204],
      ['/.well-known/oauth-authorization-server', 'GET', 200],
    ] as const) {
      const response = await trusted(path, { method })
      expect([path, response.status]).toEqual([path, status])
      expect(response.headers.get('strict-transport-security')).toBe('max-age=31536000')
    }
  })

  it('is the https issuer of its OAuth metadata, every endpoint https', async () => {
    const metadata = (await (await trusted('/.well-known/oauth-authorization-server')).json()) as Record<
      string,
      unknown
    >
    expect(metadata.issuer).toBe(server.url)
    for (const [name, value] of Object.entries(metadata)) {
      if (name.endsWith('_endpoint') || name === 'jwks_uri') expect(value).toStartWith(`${server.url}/`)
    }
  })

  it('does not answer plain HTTP on its port', async () => {
    const plain = await fetch(`${server.url.replace('https:', 'http:')}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    )
    expect(plain).not.toBe(200)
  })

  describe('the CLI over HTTPS', () => {
    let env: Record<string, string>
    const cli = async (argv: string[], extra: Record<string, string | undefined> = {}) => {
      const child = Bun.spawn([BUN, CLI, ...argv], {
        env: { PATH: process.env.PATH, HOME: env.XDG_CONFIG_HOME, ...env, ...extra },
        stdin: 'ignore',
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const [stdout, stderr, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ])
      return { code, stdout, stderr }
    }

    beforeAll(async () => {
      const org = JSON.parse(await runOk(['org', 'create', '--name', 'Secure', '--json'], db)).id as string
      const client = JSON.parse(await runOk(['client', 'create', '--name', 'ci', '--org', org, '--json'], db))
      env = {
        API_URL: server.url,
        API_CA_CERT: certs.caCert,
        API_CLIENT_ID: client.client_id,
        API_CLIENT_SECRET: client.client_secret,
        XDG_CONFIG_HOME: mkdtempSync(join(dir, 'config-')),
      }
    })

    it('trusts the private CA of API_CA_CERT: logs in with client credentials, creates and lists', async () => {
      const login = await cli(['login', '--client-credentials'])
      expect(login).toMatchObject({ code: 0, stdout: '' })
      expect(login.stderr).toStartWith(`Logged in to ${server.url}`)
      const created = await cli([
        'create',
        'products',
        'name=Lamp',
        'sku=L-1',
        'price[value]:=1999',
        'price[currency]=EUR',
      ])
      expect(created.code).toBe(0)
      const listed = await cli(['list', 'products'])
      expect(listed).toMatchObject({ code: 0, stderr: '' })
      expect((JSON.parse(listed.stdout) as { sku: string }[]).map((p) => p.sku)).toEqual(['L-1'])
    })

    it('refuses the server without API_CA_CERT: its certificate is not trusted, and says what to do', async () => {
      const fresh = mkdtempSync(join(dir, 'config-'))
      const run = await cli(['login', '--client-credentials'], {
        API_CA_CERT: undefined,
        XDG_CONFIG_HOME: fresh,
      })
      expect(run).toEqual({
        code: 3,
        stdout: '',
        stderr: `api: could not reach ${server.url} (unable to verify the first certificate: if a private CA signed the server's certificate, name that CA's PEM file in API_CA_CERT)\n`,
      })
    })

    it('does not retry a request the certificate refused: one line at once, no wait', async () => {
      const started = Date.now()
      const run = await cli(['list', 'products'], { API_CA_CERT: undefined })
      expect(run.code).toBe(3)
      expect(run.stdout).toBe('')
      expect(run.stderr).not.toContain('retrying')
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(run.stderr).toContain("name that CA's PEM file in API_CA_CERT")
      // The first retry would wait at least 1 s.
      expect(Date.now() - started).toBeLessThan(1_000)
    })

    it('names the file of API_CA_CERT when its CA did not sign the certificate either', async () => {
      const other = join(certs.dir, 'other.pem')
      const run = await cli(['list', 'products'], { API_CA_CERT: other })
      expect(run.code).toBe(3)
      expect(run.stderr).toBe(
        `api: could not reach ${server.url} (unable to verify the first certificate: neither a public CA nor the CA in API_CA_CERT ${other} signed the server's certificate)\n`,
      )
    })

    it('says which file when API_CA_CERT cannot be read, without retrying', async () => {
      const missing = join(dir, 'no-ca.pem')
      const fresh = mkdtempSync(join(dir, 'config-'))
      const run = await cli(['login', '--client-credentials'], {
        API_CA_CERT: missing,
        XDG_CONFIG_HOME: fresh,
      })
      expect(run.code).not.toBe(0)
      expect(run.stderr).toContain(`API_CA_CERT ${missing}`)
      const list = await cli(['list', 'products'], { API_CA_CERT: missing })
      expect(list.code).toBe(3)
      expect(list.stderr).toBe(
        `api: could not reach ${server.url} (API_CA_CERT ${missing} cannot be read: ENOENT)\n`,
      )
    })
  })
})

describe('api-server serve --host 0.0.0.0 with a certificate', () => {
  let server: ServeProcess
  let port: string
  let home: string

  beforeAll(async () => {
    server = await startServe([
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--db',
      newDb(),
      '--tls-cert',
      certs.cert,
      '--tls-key',
      certs.key,
    ])
    port = new URL(server.url).port
    home = mkdtempSync(join(dir, 'config-'))
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('names a host the certificate is for as the issuer and in the next steps, never 0.0.0.0', async () => {
    // The test certificate is for 127.0.0.1 and localhost, not for this machine's name.
    const origin = `https://localhost:${port}`
    // The hint follows the listening line.
    while (!server.stderr().includes('Then log in:')) await Bun.sleep(20)
    const hint = server
      .stderr()
      .split('\n')
      .filter((line) => !line.startsWith('api-server listening on'))
    expect(hint.join('\n')).not.toContain('0.0.0.0')
    expect(hint).toContain(
      `Then log in: API_URL=${origin} npm run -s api -- login   (or API_URL=${origin} dist/api login after npm run build)`,
    )
    const metadata = await fetch(`${origin}/.well-known/oauth-authorization-server`, {
      tls: { ca: readFileSync(certs.caCert, 'utf8') },
    })
    expect(((await metadata.json()) as { issuer: string }).issuer).toBe(origin)
  })

  it('the CLI says in plain words that the certificate is for other names than the one it reached', async () => {
    const { code, stdout, stderr } = await spawnCli(['list', 'products'], {
      XDG_CONFIG_HOME: home,
      API_URL: `https://127.0.0.2:${port}`,
      API_CA_CERT: certs.caCert,
      API_TOKEN: 'x',
    })
    expect({ code, stdout, stderr }).toEqual({
      code: 3,
      stdout: '',
      // The first request a list makes is the one that learns the server's collections.
      stderr: `api: could not reach https://127.0.0.2:${port} (the server's certificate is for 127.0.0.1 and localhost, not 127.0.0.2) to learn its collections, and profile default keeps no copy of them from an earlier run\n`,
    })
  })
})

describe('publicHost (the issuer and next steps of a server on a wildcard address)', () => {
  const pem = () => readFileSync(certs.cert, 'utf8')
  // The test certificate is for 127.0.0.1 and localhost: the machine's name only when it covers it.
  it.each([
    ['127.0.0.1', 'no certificate', 'web1', '127.0.0.1'],
    ['::1', 'no certificate', 'web1', '[::1]'],
    ['0.0.0.0', 'no certificate', 'web1', 'web1'],
    ['::', 'no certificate', 'web1', 'web1'],
    ['0.0.0.0', 'the certificate', 'web1', 'localhost'],
    ['::', 'the certificate', 'localhost', 'localhost'],
  ] as const)('listening on %s with %s on machine %s is reached as %s', (host, tls, machine, expected) => {
    expect(publicHost(host, tls === 'the certificate' ? pem() : undefined, machine)).toBe(expected)
  })
})
