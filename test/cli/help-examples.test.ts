/**
 * Every example `api COMMAND --help` and `api list COLLECTION --help` print runs as printed, as a
 * process in bash, against a server with the demo data (v2, the CLI's default): exit 0, and a
 * list or query of a collection the demo data fills prints records.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { exampleSchema } from '../../shared/resources/index.ts'
import { type Block, type Expectations, examplesOf, helpExamples, type Stage, stage } from './examples.ts'
import { runBlock } from './examples-run.ts'
import { removeTempDirs, runCli, tempDir } from './harness.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

const EXPECTATIONS: Expectations = {
  skipped: {
    'api login': { reason: 'the device flow waits for a person to approve it in a browser' },
  },
  mayBeEmpty: {
    'api list oauth-clients --public true': "the demo organization's clients are confidential ones",
  },
}

/** The server the examples run against; the help's examples are made from its collections. */
const demo: Stage = await stage()
const helpEnv = { API_URL: demo.server.url, XDG_CONFIG_HOME: tempDir() }

/** A command's help, read as the user reads it. */
async function help(argv: string[]): Promise<string> {
  const run = await runCli([...argv, '--help'], { env: helpEnv })
  if (run.code !== 0) throw new Error(`api ${argv.join(' ')} --help: ${run.stderr}`)
  return run.stdout
}

async function helpBlocks(): Promise<Block[]> {
  const global = await help([])
  const commands = global
    .split('\n\n')
    .find((part) => part.startsWith('Commands:'))!
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(' ')[0]!)
  const pages = [
    ...commands.map((command) => [command]),
    ...SCHEMA.resources.map((resource) => ['list', resource.name]),
    ['list', 'posts/pst_…/comments'],
    ...['create', 'update', 'replace'].map((command) => [command, 'orders']),
  ]
  const blocks: Block[] = []
  for (const page of pages) {
    const name = `api ${page.join(' ')} --help`
    blocks.push({ name, examples: examplesOf(() => name, helpExamples(await help(page))) })
  }
  return blocks
}

const blocks = await helpBlocks()

afterAll(async () => {
  await demo.stop()
  removeTempDirs()
})

describe('the examples of --help', () => {
  it('are found: every command with arguments has some', () => {
    const without = blocks.filter((b) => b.examples.length === 0).map((b) => b.name)
    expect(without).toEqual(['api logout --help', 'api whoami --help', 'api version --help'])
  })

  for (const block of blocks.filter((b) => b.examples.length > 0)) {
    it(`of ${block.name} run as printed`, async () => {
      expect(await runBlock(demo, block, EXPECTATIONS)).toEqual([])
    }, 120_000)
  }
})
