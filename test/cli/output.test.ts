import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { VERSION } from '../../cli/main.ts'
import { headerOf, renderRecord, renderTable } from '../../cli/output.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { type Env, loggedInEnv, seedOrders, seedUser } from './fixtures.ts'
import { type RunOptions, removeTempDirs, runCli, tempDir } from './harness.ts'

let server: TestServer
let env: Env

const ESC = '\u001b['

beforeAll(async () => {
  server = await startTestServer()
  const tenant = await server.tenant()
  env = await loggedInEnv(server, tenant)
  const userId = await seedUser(tenant)
  await seedOrders(tenant, userId, [
    { amount: 100, status: 'paid' },
    { amount: 200, status: 'pending' },
  ])
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

describe('output format', () => {
  const cases: {
    name: string
    args: string[]
    options: Partial<RunOptions>
    check: (stdout: string) => void
  }[] = [
    {
      name: 'a table on a terminal',
      args: [],
      options: { tty: true },
      check: (stdout) => {
        const [header, ...rows] = stdout.trimEnd().split('\n')
        // v2: the amount is a money object, shown in major units with its currency.
        expect(header).toMatch(/^ID +USER ID +STATUS +AMOUNT +CREATED AT$/)
        expect(rows).toHaveLength(2)
        expect(rows[0]).toMatch(/^ord_\w+ +usr_\w+ +pending +2\.00 EUR +\d{4}-/)
      },
    },
    {
      name: 'a JSON array when piped',
      args: [],
      options: { tty: false },
      check: (stdout) =>
        expect(JSON.parse(stdout).map((o: { amount: unknown }) => o.amount)).toEqual([
          { value: 200, currency: 'EUR' },
          { value: 100, currency: 'EUR' },
        ]),
    },
    {
      name: 'JSON on a terminal with --format json',
      args: ['--format', 'json'],
      options: { tty: true },
      check: (stdout) => expect(JSON.parse(stdout)).toHaveLength(2),
    },
    {
      name: 'NDJSON with --format ndjson',
      args: ['--format', 'ndjson'],
      options: { tty: true },
      check: (stdout) => {
        const lines = stdout.trimEnd().split('\n')
        expect(lines.map((line) => JSON.parse(line).amount.value)).toEqual([200, 100])
      },
    },
    {
      name: 'a table when piped with --format table',
      args: ['--format', 'table'],
      options: { tty: false },
      check: (stdout) => expect(stdout).toStartWith('ID '),
    },
  ]
  for (const { name, args, options, check } of cases) {
    it(`prints ${name}`, async () => {
      const run = await runCli(['list', 'orders', ...args], { env: { ...env, NO_COLOR: '1' }, ...options })
      expect(run.code).toBe(0)
      check(run.stdout)
    })
  }

  it('prints "(no records)" for an empty table', async () => {
    const run = await runCli(['list', 'orders', '--status', 'shipped'], {
      env: { ...env, NO_COLOR: '1' },
      tty: true,
    })
    expect(run.stdout).toBe('(no records)\n')
  })

  it('prints a single record as aligned fields on a terminal and as one JSON object when piped', async () => {
    const id = JSON.parse((await runCli(['list', 'orders', '--limit', '1'], { env })).stdout)[0].id
    const table = await runCli(['get', 'orders', id], { env: { ...env, NO_COLOR: '1' }, tty: true })
    expect(table.stdout).toMatch(new RegExp(`^id +${id}$`, 'm'))
    expect(table.stdout).toMatch(/^amount +2\.00 EUR$/m)
    const piped = await runCli(['get', 'orders', id], { env })
    expect(JSON.parse(piped.stdout)).toMatchObject({ id, amount: { value: 200, currency: 'EUR' } })
    expect(piped.stdout.trimEnd().split('\n')).toHaveLength(1)
  })

  it('rejects an unknown --format with exit 2', async () => {
    const run = await runCli(['list', 'orders', '--format', 'xml'], { env })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--format must be one of json, ndjson, table')
    expect(run.requests).toHaveLength(0)
  })
})

describe('tables', () => {
  const headers: [string, string][] = [
    ['id', 'ID'],
    ['userId', 'USER ID'],
    ['nextAttemptAt', 'NEXT ATTEMPT AT'],
    ['lastResponseStatus', 'LAST RESPONSE STATUS'],
    ['actor.type', 'ACTOR.TYPE'],
    ['line1', 'LINE1'],
  ]
  for (const [column, header] of headers)
    it(`heads the column ${column} as ${header}`, () => expect(headerOf(column)).toBe(header))

  const delivery = {
    id: 'dlv_01m8d7v8w9e4y9phxwr87kz2q8',
    endpointId: 'whe_01m8d7v8w9e4y9phxwr87kz2q8',
    eventType: 'order.created',
    status: 'pending',
    attempts: 1,
    nextAttemptAt: '2026-11-27T00:52:51.209Z',
    createdAt: '2026-11-27T00:52:51.209Z',
  }
  const columns = Object.keys(delivery)

  it('shows every column whole when there is room', () => {
    const [header, row] = renderTable([delivery], columns, false, 200).trimEnd().split('\n')
    expect(header).toMatch(/^ID +ENDPOINT ID +EVENT TYPE +STATUS +ATTEMPTS +NEXT ATTEMPT AT +CREATED AT$/)
    expect(row!.split(/ {2,}/)).toEqual(Object.values(delivery).map(String))
  })

  const widths = [40, 60, 80, 100]
  for (const width of widths) {
    it(`keeps ids whole at ${width} columns, leaving out the last columns that do not fit`, () => {
      const lines = renderTable([delivery], columns, false, width).trimEnd().split('\n')
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width)
      const [header, row] = lines.map((line) => line.split(/ {2,}/))
      expect(row![0]).toBe(delivery.id)
      // Whatever id column is shown is shown whole.
      const endpoint = header!.indexOf('ENDPOINT ID')
      if (endpoint !== -1) expect(row![endpoint]).toBe(delivery.endpointId)
      expect(row!.join(' ')).not.toMatch(/_\w*…/)
    })
  }

  it('leaves out at 40 columns what does not fit whole (ids) or at ten characters, keeping what does', () => {
    const table = renderTable([delivery], columns, false, 40)
    expect(table).toBe(`ID                              STATUS\n${delivery.id}  pending\n`)
  })

  it('cuts a long value to fit what room is left', () => {
    const table = renderTable(
      [{ ...delivery, eventType: 'webhook-endpoint.secret-rotated' }],
      columns,
      false,
      60,
    )
    const [header, row] = table.trimEnd().split('\n')
    expect(header).toBe(`ID${' '.repeat(30)}EVENT TYPE${' '.repeat(11)}STATUS`)
    expect(row).toBe(`${delivery.id}  webhook-endpoint.s…  pending`)
    expect(row).toHaveLength(60)
  })

  it('shows the id whole even when it alone is wider than the terminal', () => {
    expect(renderTable([delivery], columns, false, 20)).toBe(`ID\n${delivery.id}\n`)
  })

  it('never cuts an id in a single record', () => {
    const record = renderRecord(delivery, false, 40)
    expect(record).toContain(`\nendpointId     ${delivery.endpointId}\n`)
    expect(record).toStartWith(`id             ${delivery.id}\n`)
  })

  it('fits api list orders into 40 columns with the ids whole', async () => {
    const run = await runCli(['list', 'orders'], { env: { ...env, NO_COLOR: '1' }, tty: true, columns: 40 })
    expect(run.code).toBe(0)
    const lines = run.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID {30}/)
    for (const line of lines.slice(1)) expect(line).toMatch(/^ord_[0-9a-z]{26}\b/)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40)
  })
})

describe('colours', () => {
  const cases: { name: string; extra: Env; tty: boolean; args: string[]; colored: boolean }[] = [
    { name: 'on a terminal', extra: {}, tty: true, args: [], colored: true },
    {
      name: 'never with NO_COLOR on a terminal',
      extra: { NO_COLOR: '1' },
      tty: true,
      args: [],
      colored: false,
    },
    { name: 'never in a piped table', extra: {}, tty: false, args: ['--format', 'table'], colored: false },
    {
      name: 'with FORCE_COLOR in a piped table',
      extra: { FORCE_COLOR: '1' },
      tty: false,
      args: ['--format', 'table'],
      colored: true,
    },
    {
      name: 'in a piped table with FORCE_COLOR=0 (it forces nothing)',
      extra: { FORCE_COLOR: '0' },
      tty: false,
      args: ['--format', 'table'],
      colored: false,
    },
    {
      name: 'never when NO_COLOR and FORCE_COLOR are both set',
      extra: { NO_COLOR: '1', FORCE_COLOR: '1' },
      tty: true,
      args: [],
      colored: false,
    },
  ]
  for (const { name, extra, tty, args, colored } of cases) {
    it(`${colored ? 'colours' : 'does not colour'} the table ${name}`, async () => {
      const run = await runCli(['list', 'orders', ...args], { env: { ...env, ...extra }, tty })
      expect(run.stdout.includes(ESC)).toBe(colored)
    })
  }

  it('colours errors on stderr only when stderr is a terminal', async () => {
    const onTerminal = await runCli(['list', 'ordres'], { env, stderrIsTTY: true })
    expect(onTerminal.stderr).toStartWith(`${ESC}31mapi:`)
    const piped = await runCli(['list', 'ordres'], { env, stdoutIsTTY: true })
    expect(piped.stderr).toStartWith('api: unknown collection')
  })
})

describe('stdout and stderr', () => {
  it('prints the API error (code, status, message, details) on stderr and nothing on stdout', async () => {
    const run = await runCli(['create', 'orders', 'amount[value]:=-1', 'amount[currency]=EUR'], { env })
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toStartWith('error VALIDATION_ERROR (422): ')
    expect(run.stderr).toMatch(/^ {2}userId: .+/m)
  })

  it('prints the command list with --help and the version with --version on stdout', async () => {
    const help = await runCli(['--help'], { env })
    expect(help.code).toBe(0)
    for (const command of [
      'login',
      'logout',
      'whoami',
      'list',
      'get',
      'create',
      'update',
      'replace',
      'delete',
      'query',
      'graphql',
      'request',
    ])
      expect(help.stdout).toMatch(new RegExp(`^ {2}${command}\\b`, 'm'))
    const version = await runCli(['--version'], { env })
    expect(version.stdout).toBe(`api ${VERSION}\n`)
    expect(version.stderr).toBe('')
  })

  it('prints the help of one command', async () => {
    const run = await runCli(['create', '--help'], { env })
    expect(run.stdout).toContain('--idempotency-key <key>')
    expect(run.requests).toHaveLength(0)
  })
})

describe('exit codes', () => {
  const cases: { status: number; meaning: string; args: string[]; env: () => Env }[] = [
    { status: 0, meaning: 'success', args: ['list', 'orders'], env: () => env },
    {
      status: 1,
      meaning: 'an API error (404)',
      args: ['get', 'orders', 'ord_00000000000000000000000000'],
      env: () => env,
    },
    { status: 2, meaning: 'an unknown command', args: ['lsit', 'orders'], env: () => env },
    { status: 2, meaning: 'a missing argument', args: ['get'], env: () => env },
    { status: 2, meaning: 'no command', args: [], env: () => env },
    {
      status: 3,
      meaning: 'an unreachable server',
      args: ['list', 'orders', '--timeout', '1'],
      env: () => ({ ...env, API_URL: 'http://127.0.0.1:9', API_TOKEN: 'token-for-nowhere-0123' }),
    },
    {
      status: 4,
      meaning: 'no login',
      args: ['list', 'orders'],
      env: () => ({ API_URL: server.url, XDG_CONFIG_HOME: tempDir() }),
    },
    {
      status: 2,
      meaning: 'an API_URL that is not a URL',
      args: ['list', 'orders'],
      env: () => ({ ...env, API_URL: 'not a url' }),
    },
  ]
  for (const { status, meaning, args, env: runEnv } of cases) {
    it(`exits ${status} for ${meaning}`, async () => {
      const run = await runCli(args, { env: runEnv() })
      expect(run.code).toBe(status)
      if (status === 0) expect(run.stderr).toBe('')
      else expect(run.stderr).not.toBe('')
    })
  }
})
