/**
 * Every command of the ```sh blocks of docs/cli.md runs as printed, as a process in bash, block
 * after block as a reader would run them, against a server with the demo data: exit 0, and a list
 * or query of a collection the demo data fills prints records. (The ```bash block is the CI smoke
 * script, which test/cli/smoke-script.test.ts runs.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { saveLogin } from '../../cli/config.ts'
import { type Expectations, markdownBlocks, type Stage, stage } from './examples.ts'
import { runBlock } from './examples-run.ts'
import { ROOT, removeTempDirs } from './harness.ts'

const DOCS = join(ROOT, 'docs/cli.md')

let demo: Stage

const EXPECTATIONS: Expectations = {
  skipped: {
    'api login': { reason: 'the device flow waits for a person to approve it in a browser' },
    'api login --web': { reason: 'waits for a person to sign in, in a browser on this machine' },
    'api login --profile staging': {
      reason: 'the device flow waits for a person',
      // The lines after it use that login: the demo admin's, as the flow would leave it.
      standIn: (home) => saveLogin({ HOME: home, API_PROFILE: 'staging' }, demo.server.url, demo.admin.login),
    },
  },
  mayBeEmpty: {
    'api list orders --created-after 2026-01-01 --created-before 2026-02-01':
      'a fixed month: the demo data is made the day the test runs',
  },
}

const blocks = markdownBlocks(DOCS, 'docs/cli.md')

beforeAll(async () => {
  demo = await stage()
})
afterAll(async () => {
  await demo.stop()
  removeTempDirs()
})

describe('the examples of docs/cli.md', () => {
  it('are found, and the only ```bash block is the smoke script', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(10)
    const bash = readFileSync(DOCS, 'utf8').split('```bash\n').slice(1)
    expect(bash).toHaveLength(1)
    expect(bash[0]).toStartWith('set -euo pipefail\napi login --client-credentials\n')
  })

  for (const block of blocks) {
    it(`of the block at ${block.name} run as printed`, async () => {
      expect(await runBlock(demo, block, EXPECTATIONS)).toEqual([])
    }, 120_000)
  }
})
