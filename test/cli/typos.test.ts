/** Typos in commands, options and filters: named as typed, with the nearest one meant, exit 2. */
import { afterAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { exampleDocument } from './example-document.ts'
import { removeTempDirs, runCli, spawnCli, tempDir } from './harness.ts'

// A server that answers only the document the CLI learns the collections from: a typo must be
// caught before any other request.
const stub = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: (request) => exampleDocument(request) ?? new Response('no request was expected', { status: 500 }),
})
const env = { API_URL: stub.url.origin, API_TOKEN: 'typo-token-0123456789', XDG_CONFIG_HOME: tempDir() }
afterAll(() => {
  stub.stop(true)
  removeTempDirs()
})

describe('api with a typo', () => {
  const cases: [string[], string][] = [
    [
      ['update', 'orders', 'ord_1', 'status=paid', '--if-matc', '"e1"'],
      'api: unknown option --if-matc for api update (did you mean --if-match?); see: api update --help\n',
    ],
    [
      ['login', '--client-credentals'],
      'api: unknown option --client-credentals for api login (did you mean --client-credentials?); see: api login --help\n',
    ],
    [['lsit', 'orders'], 'api: unknown command "lsit" (did you mean list?); see: api --help\n'],
    [['frobnicate'], 'api: unknown command "frobnicate"; see: api --help\n'],
    [['--verbos'], 'api: unknown option --verbos (did you mean --verbose?); see: api --help\n'],
    // Before the command, the parser would take `list` for the value of the unknown option.
    [
      ['--verbos', 'list', 'orders'],
      'api: unknown option --verbos (did you mean --verbose?); see: api --help\n',
    ],
    [['--profile', 'staging', 'lsit'], 'api: unknown command "lsit" (did you mean list?); see: api --help\n'],
    // Two letters swapped are one step from what was meant (`set` would be as near otherwise).
    [['config', 'lsit'], 'api: api config takes get, set, unset or list (did you mean list?)\n'],
    [['list', 'orders', '-v'], 'api: unknown option -v for api list; see: api list --help\n'],
    [
      ['get', 'orders', 'ord_1', '--version'],
      'api: unknown option --version for api get; see: api get --help\n',
    ],
    [
      ['list', 'orders', '--stauts', 'paid'],
      'api: unknown filter --stauts for orders (did you mean --status?); see: api list orders --help\n',
    ],
    [
      ['delete', 'orders', '--stauts=paid', '--confirm'],
      'api: unknown filter --stauts for orders (did you mean --status?); see: api list orders --help\n',
    ],
    [
      ['--fromat', 'json', 'get', 'orders', 'ord_1'],
      'api: unknown option --fromat for api get (did you mean --format?); see: api get --help\n',
    ],
    [
      ['request', 'GET', '/api/versions', '--heder', 'A: b'],
      'api: unknown option --heder for api request (did you mean --header?); see: api request --help\n',
    ],
  ]
  for (const [argv, stderr] of cases) {
    it(`api ${argv.join(' ')}: names it as typed and exits 2`, async () => {
      const run = await spawnCli(argv, env)
      expect(run).toEqual({ code: 2, stdout: '', stderr })
    })
  }

  it('accepts every option as documented: short, long, --name=value and values that start with a dash', async () => {
    const run = await spawnCli(
      ['list', 'orders', '--sort', '-amount', '--status=paid', '--limit', '5', '--timeout', '0.1'],
      env,
    )
    // Past the option check: the request is sent (and answered 500 by this server).
    expect(run.code).toBe(1)
    expect(run.stderr).toBe('error INTERNAL (500): The server answered 500.\n')
  })
})

describe('any unknown option (property)', () => {
  const known = new Set(['h', 'format', 'timeout', 'api-version', 'profile', 'verbose', 'help'])
  it('is named exactly as typed, and nothing is sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((name) => !known.has(name)),
        fc.constantFrom(['get', 'orders', 'ord_1'], ['create', 'orders', 'a=1'], ['whoami'], ['version']),
        async (name, command) => {
          const run = await runCli([...command, `--${name}`, 'x'], { env })
          expect(run.code).toBe(2)
          expect(run.stderr).toStartWith(`api: unknown option --${name} for api ${command[0]}`)
          expect(run.requests).toEqual([])
        },
      ),
      { numRuns: 60 },
    )
  })
})

describe('two neighbouring letters swapped (property)', () => {
  const commands = [
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
  ]
  it('suggests the command meant', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...commands), fc.nat(), async (command, at) => {
        const i = at % (command.length - 1)
        const typed = command.slice(0, i) + command[i + 1] + command[i] + command.slice(i + 2)
        fc.pre(typed !== command)
        const run = await runCli([typed, 'orders'], { env })
        expect(run.code).toBe(2)
        expect(run.stderr).toBe(
          `api: unknown command "${typed}" (did you mean ${command}?); see: api --help\n`,
        )
        expect(run.requests).toEqual([])
      }),
      { numRuns: 60 },
    )
  })
})
