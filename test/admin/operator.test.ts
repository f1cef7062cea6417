/**
 * `api-server` as an operator meets it (docs/operations.md, "Running api-server"): global flags
 * before the command, each command's help listing its actions, the version, JSON alone on
 * stdout, and a start-up hint with the next steps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT, runAdmin, runOk, startServe } from './run.ts'

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string

let dir: string
let n = 0
const newDb = () => join(dir, `operator-${++n}.db`)

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'api-operator-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('global flags before the command', () => {
  it('runs `api-server --db X migrate` like `api-server migrate --db X`', async () => {
    const db = newDb()
    const run = await runAdmin(['--db', db, '--json', 'migrate'], null)
    expect(run).toMatchObject({ status: 0, stderr: '' })
    expect(JSON.parse(run.stdout).version).toBeGreaterThan(0)
    expect(JSON.parse(await runOk(['migrate', '--json'], db))).toEqual(JSON.parse(run.stdout))
  })

  it('takes --db=X and flags on both sides of the command and its action', async () => {
    const db = newDb()
    const created = await runAdmin([`--db=${db}`, 'org', '--json', 'create', '--name', 'Initech'], null)
    expect(created.status).toBe(0)
    const { id } = JSON.parse(created.stdout)
    const again = await runAdmin(['--db', db, 'org', 'create', '--name', 'Initech'], null)
    expect(again.status).toBe(1)
    expect(again.stderr).toContain('exists already')
    expect(id).toMatch(/^org_/)
  })

  it('still serves when only flags are given, and names an unknown command after flags', async () => {
    const unknown = await runAdmin(['--db', newDb(), 'frobnicate'], null)
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toBe('api-server: unknown command "frobnicate" (see api-server --help)\n')
    const server = await startServe(['--port', '0', '--db', newDb()])
    expect(await server.stop()).toBe(0)
  })
})

describe('help and version', () => {
  it.each([
    ['org', ['$ api-server org create --name N', '$ api-server org list']],
    [
      'user',
      [
        '$ api-server user create --org ORG --email E --name N --role R (--password P | --password-stdin)',
        '$ api-server user list --org ORG',
        '$ api-server user set-password --org ORG --email E (--password-stdin | --password P)',
      ],
    ],
    [
      'client',
      [
        '$ api-server client create --name N --org ORG [--public]',
        '$ api-server client list --org ORG',
        '$ api-server client update CLIENT --scope "s1 s2"',
        '$ api-server client revoke CLIENT',
      ],
    ],
    ['keys', ['$ api-server keys rotate']],
  ])('`%s --help` lists its actions on stdout', async (command, actions) => {
    const run = await runAdmin([command, '--help'], null)
    expect(run).toMatchObject({ status: 0, stderr: '' })
    expect(run.stdout).toContain('Actions:')
    for (const action of actions) expect(run.stdout).toContain(action)
  })

  it('`serve --help` lists --no-cache without a default, and every flag of the README', async () => {
    const run = await runAdmin(['serve', '--help'], null)
    expect(run).toMatchObject({ status: 0, stderr: '' })
    expect(run.stdout).toMatch(
      /^ {2}--no-cache {2,}Answer every read from the database \(the same as --cache-mb 0\) *$/m,
    )
    expect(run.stdout).not.toContain('(default: true)')
    // The README's table of serve's flags names every flag the help lists.
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const row = readme.split('\n').find((line) => line.startsWith('| `api-server serve`'))!
    const flags = [...run.stdout.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!)
    expect(flags).toContain('--allow-http-webhooks')
    const named = (flag: string) => new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(row)
    expect(flags.filter((flag) => !['--help', '--json'].includes(flag) && !named(flag))).toEqual([])
  })

  it('names the known actions when given an unknown one', async () => {
    const run = await runAdmin(['keys', 'delete'], newDb())
    expect(run.status).toBe(2)
    expect(run.stderr).toBe('api-server: unknown action "keys delete" (try: keys rotate)\n')
  })

  it.each([['--version'], ['-v']])('`%s` prints the product version (package.json)', async (flag) => {
    const run = await runAdmin([flag], null)
    expect(run).toMatchObject({ status: 0, stdout: `api-server ${VERSION}\n`, stderr: '' })
  })
})

describe('api-server serve: stdout is the JSON log, people read stderr', () => {
  it('on a database with no organization, names the org, user and client create steps with its --db', async () => {
    const db = newDb()
    const server = await startServe(['--port', '0', '--db', db])
    expect(await server.stop()).toBe(0)
    const hint = server.stderr()
    expect(hint).toContain('The database has no organization yet.')
    for (const step of ['org create --name', 'user create --org', 'client create --name', 'seed'])
      expect(hint).toContain(`npm run -s api-server -- --db ${db} ${step}`)
    expect(hint).toContain(`API_URL=${server.url} npm run -s api -- login`)
    for (const line of server.stdout().trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
  })

  it('once an organization exists, says only how to log in', async () => {
    const db = newDb()
    await runOk(['org', 'create', '--name', 'Acme'], db)
    const server = await startServe(['--port', '0', '--db', db])
    expect(await server.stop()).toBe(0)
    expect(server.stderr()).not.toContain('no organization')
    expect(server.stderr()).toContain(
      `In a browser: ${server.url}/console (console), ${server.url}/docs (API reference), ${server.url}/graphql (GraphiQL)\n` +
        `Next, in another terminal: API_URL=${server.url} npm run -s api -- login`,
    )
  })

  it('with --production names /docs and /graphql, and says GraphiQL is not served there', async () => {
    const server = await startServe(['--port', '0', '--db', newDb(), '--production'])
    expect(await server.stop()).toBe(0)
    expect(server.stderr()).toContain(
      `Console: ${server.url}/console  API reference: ${server.url}/docs  GraphQL: ${server.url}/graphql (no GraphiQL with --production)\n`,
    )
  })

  it('names the public origin of --base-url in the hint, as clients behind a proxy reach it', async () => {
    const db = newDb()
    await runOk(['org', 'create', '--name', 'Acme'], db)
    const server = await startServe(['--port', '0', '--db', db, '--base-url', 'https://api.example.com/'])
    expect(await server.stop()).toBe(0)
    expect(server.stderr()).toContain(
      'Next, in another terminal: API_URL=https://api.example.com npm run -s api -- login',
    )
    // Plain HTTP here: nothing about a private CA.
    expect(server.stderr()).not.toContain('API_CA_CERT')
  })

  it('with --demo on :memory:, loads the demo data into the database it serves and prints the logins on stderr', async () => {
    const server = await startServe(['--port', '0', '--db', ':memory:', '--demo'])
    expect(await server.stop()).toBe(0)
    expect(server.stderr()).toContain('alice@acme.example  password: alice-demo-pass')
    // The hint reads the served database: it has the demo organizations.
    expect(server.stderr()).toContain('Next, in another terminal:')
    expect(server.stdout()).not.toContain('password')
    for (const line of server.stdout().trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow()
  })
})
