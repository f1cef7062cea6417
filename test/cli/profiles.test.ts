/** Profiles (`--profile`, `API_PROFILE`, `api config`), each with its own server and login; `api version`. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import fc from 'fast-check'
import { credentialsPath, PROFILE_NAME } from '../../cli/config.ts'
import { PRODUCT_VERSION } from '../../shared/version.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { seedOrders, seedUser } from './fixtures.ts'
import { removeTempDirs, runCli, secret, spawnCli, tempDir } from './harness.ts'

let main: TestServer
let staging: TestServer
let mainTenant: Tenant
let stagingTenant: Tenant
const home = tempDir()
// No API_URL: the profiles say where to go.
const env = { XDG_CONFIG_HOME: home }

beforeAll(async () => {
  ;[main, staging] = await Promise.all([startTestServer(), startTestServer()])
  ;[mainTenant, stagingTenant] = await Promise.all([main.tenant(), staging.tenant()])
  secret(mainTenant.token, mainTenant.clientSecret, stagingTenant.token, stagingTenant.clientSecret)
  await seedOrders(mainTenant, await seedUser(mainTenant), [{ amount: 1, status: 'paid' }])
  await seedOrders(stagingTenant, await seedUser(stagingTenant), [
    { amount: 2, status: 'paid' },
    { amount: 3, status: 'paid' },
  ])
})
afterAll(async () => {
  await Promise.all([main.stop(), staging.stop()])
  removeTempDirs()
})

const login = (tenant: Tenant, ...flags: string[]) =>
  spawnCli(
    [
      'login',
      '--client-credentials',
      '--client-id',
      tenant.clientId,
      '--client-secret',
      tenant.clientSecret,
      ...flags,
    ],
    env,
  )

describe('api config and profiles', () => {
  it('sets each profile its own server, and lists the settings', async () => {
    expect((await spawnCli(['config', 'set', 'url', main.url], env)).code).toBe(0)
    const set = await spawnCli(['config', 'set', 'url', staging.url, '--profile', 'staging'], env)
    expect(set).toMatchObject({ code: 0, stdout: '' })
    expect((await spawnCli(['config', 'get', 'url'], env)).stdout).toBe(`${main.url}\n`)
    expect((await spawnCli(['config', 'get', 'url'], { ...env, API_PROFILE: 'staging' })).stdout).toBe(
      `${staging.url}\n`,
    )
    const list = await spawnCli(['config', 'list'], env)
    expect(JSON.parse(list.stdout)).toEqual([
      { profile: 'default', key: 'url', value: main.url },
      { profile: 'staging', key: 'url', value: staging.url },
    ])
    expect(statSync(join(home, 'api', 'config.json')).mode & 0o777).toBe(0o600)
  })

  it('logs each profile in on its own server and keeps the logins apart', async () => {
    expect((await login(mainTenant)).code).toBe(0)
    const second = await login(stagingTenant, '--profile', 'staging')
    expect(second.code).toBe(0)
    expect(second.stderr).toContain(`Logged in to ${staging.url}`)
    const file = join(home, 'api', 'profiles', 'staging', 'credentials.json')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const fromDefault = JSON.parse((await spawnCli(['list', 'orders'], env)).stdout)
    const fromFlag = JSON.parse((await spawnCli(['--profile', 'staging', 'list', 'orders'], env)).stdout)
    const fromEnv = JSON.parse(
      (await spawnCli(['list', 'orders'], { ...env, API_PROFILE: 'staging' })).stdout,
    )
    expect(fromDefault.map((o: { amount: { value: number } }) => o.amount.value)).toEqual([1])
    expect(fromFlag).toHaveLength(2)
    expect(fromEnv).toEqual(fromFlag)
  })

  it('logs one profile out and leaves the other logged in', async () => {
    expect((await spawnCli(['logout', '--profile', 'staging'], env)).code).toBe(0)
    expect((await spawnCli(['list', 'orders', '--profile', 'staging'], env)).code).toBe(4)
    expect((await spawnCli(['list', 'orders'], env)).code).toBe(0)
  })

  it('refuses a profile that was never configured, and bad settings (exit 2)', async () => {
    const unknown = await spawnCli(['list', 'orders', '--profile', 'prod'], env)
    expect(unknown).toEqual({
      code: 2,
      stdout: '',
      stderr: 'api: no profile "prod"; create it: api config set url URL --profile prod\n',
    })
    for (const argv of [
      ['config', 'set', 'url', 'ftp://example.com'],
      ['config', 'set', 'formt', 'json'],
      ['config', 'set', 'timeout', '-1'],
      ['config', 'get', 'url', '--profile', '../x'],
      ['config', 'remove', 'url'],
    ]) {
      const run = await spawnCli(argv, env)
      expect(run.code).toBe(2)
      expect(run.stderr).toStartWith('api: ')
    }
    expect((await spawnCli(['config', 'set', 'formt', 'json'], env)).stderr).toContain(
      '(did you mean format?)',
    )
  })

  it('unsets a setting of one profile, and unsetting it again changes nothing (exit 0)', async () => {
    expect((await spawnCli(['config', 'set', 'timeout', '12', '--profile', 'staging'], env)).code).toBe(0)
    expect((await spawnCli(['config', 'set', 'timeout', '15'], env)).code).toBe(0)
    const unset = await spawnCli(['config', 'unset', 'timeout', '--profile', 'staging'], env)
    expect(unset).toEqual({ code: 0, stdout: '', stderr: 'staging: timeout unset\n' })
    expect((await spawnCli(['config', 'get', 'timeout', '--profile', 'staging'], env)).code).toBe(1)
    expect((await spawnCli(['config', 'get', 'timeout'], env)).stdout).toBe('15\n')
    const again = await spawnCli(['config', 'unset', 'timeout', '--profile', 'staging'], env)
    expect(again).toEqual({ code: 0, stdout: '', stderr: 'staging: timeout was not set\n' })
    expect((await spawnCli(['config', 'get', 'url', '--profile', 'staging'], env)).stdout).toBe(
      `${staging.url}\n`,
    )
    expect((await spawnCli(['config', 'unset', 'timout'], env)).stderr).toContain('(did you mean timeout?)')
    expect((await spawnCli(['config', 'unset', 'timeout'], env)).code).toBe(0)
  })

  it('uses a profile’s format setting, and the flag wins over it', async () => {
    expect((await spawnCli(['config', 'set', 'format', 'ndjson'], env)).code).toBe(0)
    const ndjson = await spawnCli(['list', 'orders'], env)
    expect(ndjson.stdout.trimEnd().split('\n')).toHaveLength(1)
    expect(ndjson.stdout.startsWith('{')).toBe(true)
    expect((await spawnCli(['list', 'orders', '--format', 'json'], env)).stdout.startsWith('[')).toBe(true)
  })
})

describe('api version and --version', () => {
  it('prints the product version with --version, not the runtime’s', async () => {
    expect(await spawnCli(['--version'], env)).toEqual({
      code: 0,
      stdout: `api ${PRODUCT_VERSION}\n`,
      stderr: '',
    })
  })

  it('prints its own version and the API versions of the server of the profile', async () => {
    const run = await spawnCli(['version', '--profile', 'staging', '--format', 'json'], env)
    expect(run.code).toBe(0)
    const answer = JSON.parse(run.stdout)
    expect(answer.cli).toBe(PRODUCT_VERSION)
    expect(answer.server).toBe(staging.url)
    expect(answer.apiVersions.find((v: { version: string }) => v.version === 'v2')).toMatchObject({
      path: '/api/v2',
    })
  })

  it('still prints its own version when the server cannot be reached, and exits 3', async () => {
    const run = await spawnCli(['version', '--format', 'table'], { ...env, API_URL: 'http://127.0.0.1:9' })
    expect(run.code).toBe(3)
    expect(run.stdout).toBe(`api ${PRODUCT_VERSION}\n`)
  }, 15_000)

  it('piped, still prints its own version as JSON (apiVersions null) when the server cannot be reached, and exits 3', async () => {
    const run = await spawnCli(['version'], { ...env, API_URL: 'http://127.0.0.1:9' })
    expect(run.code).toBe(3)
    expect(JSON.parse(run.stdout)).toEqual({
      cli: PRODUCT_VERSION,
      server: 'http://127.0.0.1:9',
      apiVersions: null,
    })
    expect(run.stderr).toContain('could not reach http://127.0.0.1:9 (connection refused)')
  }, 15_000)
})

describe('profile names (property)', () => {
  it('are refused unless they stay one directory under the configuration (exit 2, no file written)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string(), fc.constantFrom('..', '.', 'a/b', '../etc', '-x', '')),
        async (name) => {
          const scratch = tempDir()
          const run = await runCli(['config', 'set', 'format', 'json', '--profile', name], {
            env: { XDG_CONFIG_HOME: scratch },
          })
          if (run.code === 0 && name !== 'default') {
            expect(name).toMatch(PROFILE_NAME)
            const path = resolve(credentialsPath({ XDG_CONFIG_HOME: scratch, API_PROFILE: name }))
            expect(dirname(dirname(path))).toBe(join(scratch, 'api', 'profiles'))
          } else if (run.code !== 0) {
            expect(run.code).toBe(2)
            expect(existsSync(join(scratch, 'api', 'config.json'))).toBe(false)
          }
        },
      ),
      { numRuns: 80 },
    )
  })
})
