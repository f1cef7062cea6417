/**
 * The executables of `npm run build` (scripts/build.ts), compiled into a temporary directory and
 * run with no checkout around them: the version compiled in, global flags, a start-up hint naming
 * the binaries as the operator typed them, JSON (never Bun's HTML error page) for requests fetch
 * never sends, GraphiQL's files, and HTTPS between the compiled server and client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { chromiumAvailable, demoUser, signInToConsole, withBrowser } from '../console/support.ts'
import { buildExecutables, execCompiled } from '../support/compiled.ts'
import { rawExchange } from '../support/raw-http.ts'
import { makeTestCertificates, type TestCertificates } from '../support/tls.ts'
import { ROOT, startServe } from './run.ts'

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string

let dir: string
let bin: string
let certs: TestCertificates

/** Runs a compiled executable with the system's PATH, in the test's directory unless `cwd` says otherwise. */
const exec = (argv: string[], options: { cwd?: string; env?: Record<string, string> } = {}) =>
  execCompiled(argv, options.cwd ?? dir, { HOME: dir, ...options.env })

beforeAll(async () => {
  ;({ dir, bin } = buildExecutables('api-compiled-'))
  certs = makeTestCertificates()
}, 120_000)
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
  rmSync(certs.dir, { recursive: true, force: true })
})

describe('dist/api-server, compiled', () => {
  it('prints the version of package.json', async () => {
    expect(await exec([join(bin, 'api-server'), '--version'])).toEqual({
      status: 0,
      stdout: `api-server ${VERSION}\n`,
      stderr: '',
    })
  })

  it('takes global flags before the command', async () => {
    const run = await exec([join(bin, 'api-server'), '--db', join(dir, 'flags.db'), '--json', 'migrate'])
    expect(run.status).toBe(0)
    expect(JSON.parse(run.stdout).version).toBeGreaterThan(0)
  })

  it('names itself and the client as typed from the working directory: bin/api-server, bin/api', async () => {
    const db = join(dir, 'hint.db')
    const server = await startServe(['--port', '0', '--db', db], { command: ['bin/api-server'], cwd: dir })
    expect(await server.stop()).toBe(0)
    expect(server.stderr()).toContain(`  bin/api-server --db ${db} org create --name`)
    expect(server.stderr()).toContain(`Then log in: API_URL=${server.url} bin/api login\n`)
    expect(server.stderr()).not.toContain('npm run')
  })

  it('names them bare when they are the ones on the PATH', async () => {
    const db = join(dir, 'on-path.db')
    const server = await startServe(['--port', '0', '--db', db], {
      command: ['api-server'],
      cwd: dir,
      env: { PATH: `${bin}:/usr/bin:/bin` },
    })
    expect(await server.stop()).toBe(0)
    expect(server.stderr()).toContain(`  api-server --db ${db} user create --org`)
    expect(server.stderr()).toContain(`Then log in: API_URL=${server.url} api login\n`)
  })

  it.each([
    ['serve', []],
    ['serve --production', ['--production']],
  ])('%s answers JSON to requests fetch never sends, never an HTML error page', async (_, flags) => {
    const server = await startServe(['--port', '0', '--db', ':memory:', ...flags], {
      command: [join(bin, 'api-server')],
      cwd: dir,
    })
    try {
      const cases = [
        { bytes: 'GET /healthz HTTP/1.0\r\n\r\n', status: 200 },
        { bytes: 'GET /healthz HTTP/1.1\r\nHost: a:b\r\nConnection: close\r\n\r\n', status: 400 },
        { bytes: 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n', status: 400 },
      ]
      for (const { bytes, status } of cases) {
        const answer = await rawExchange(server.url, bytes)
        expect(answer.status).toBe(status)
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
        expect(answer.text).not.toMatch(/<html|<!doctype/i)
      }
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })

  it('serves GraphiQL from files inside the binary, and none with --production', async () => {
    const html = { Accept: 'text/html' }
    const server = await startServe(['--port', '0', '--db', ':memory:'], {
      command: [join(bin, 'api-server')],
      cwd: dir,
    })
    try {
      const page = await fetch(`${server.url}/graphql`, { headers: html })
      expect(page.status).toBe(200)
      for (const src of (await page.text()).match(/\/graphql\/assets\/[\w.-]+/g)!)
        expect((await fetch(`${server.url}${src}`)).status).toBe(200)
    } finally {
      expect(await server.stop()).toBe(0)
    }
    const production = await startServe(['--port', '0', '--db', ':memory:', '--production'], {
      command: [join(bin, 'api-server')],
      cwd: dir,
    })
    try {
      expect((await fetch(`${production.url}/graphql`, { headers: html })).status).toBe(406)
      expect((await fetch(`${production.url}/graphql/assets/graphiql.js`)).status).toBe(404)
    } finally {
      expect(await production.stop()).toBe(0)
    }
  })

  it('serves the console from files inside the binary, also under --production, and none with --no-console', async () => {
    const server = await startServe(['--port', '0', '--db', ':memory:', '--demo', '--production'], {
      command: [join(bin, 'api-server')],
      cwd: dir,
    })
    try {
      const page = await fetch(`${server.url}/console/`)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
      const files = (await page.text()).match(/\/console\/assets\/[\w.-]+/g)!
      expect(files).toHaveLength(2)
      for (const file of files) expect((await fetch(`${server.url}${file}`)).status).toBe(200)
      if (chromiumAvailable())
        await withBrowser(async (context) => {
          const signedIn = await signInToConsole(context, server, demoUser('admin'))
          await signedIn.getByRole('heading', { name: 'Overview' }).waitFor()
          await signedIn.getByText('alice@acme.example').waitFor()
        })
    } finally {
      expect(await server.stop()).toBe(0)
    }
    for (const [flags, env] of [
      [['--no-console'], {}],
      [[], { API_CONSOLE: 'off' }],
    ] as const) {
      const off = await startServe(['--port', '0', '--db', ':memory:', ...flags], {
        command: [join(bin, 'api-server')],
        cwd: dir,
        env,
      })
      try {
        expect((await fetch(`${off.url}/console/`)).status).toBe(404)
      } finally {
        expect(await off.stop()).toBe(0)
      }
    }
  }, 60_000)

  it('serves HTTPS to the compiled client, which trusts the private CA of API_CA_CERT', async () => {
    const db = join(dir, 'tls.db')
    const work = join(dir, 'tls')
    mkdirSync(work)
    const admin = (...args: string[]) => exec([join(bin, 'api-server'), '--db', db, '--json', ...args])
    const org = JSON.parse((await admin('org', 'create', '--name', 'Acme')).stdout).id
    const client = JSON.parse((await admin('client', 'create', '--name', 'ci', '--org', org)).stdout)
    const server = await startServe(
      ['--port', '0', '--db', db, '--tls-cert', certs.cert, '--tls-key', certs.key],
      { command: [join(bin, 'api-server')] },
    )
    try {
      expect(server.url).toStartWith('https://')
      const env = {
        API_URL: server.url,
        API_CA_CERT: certs.caCert,
        API_CLIENT_ID: client.client_id,
        API_CLIENT_SECRET: client.client_secret,
        XDG_CONFIG_HOME: work,
      }
      expect((await exec([join(bin, 'api'), 'login', '--client-credentials'], { env })).status).toBe(0)
      const listed = await exec([join(bin, 'api'), 'list', 'orders'], { env })
      expect(listed).toEqual({ status: 0, stdout: '[]\n', stderr: '' })
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })
})
