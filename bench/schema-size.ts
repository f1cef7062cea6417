/**
 * `npm run bench:schema`: what a large schema file costs at start. A schema of 40 collections with
 * 10 fields each (every field type, filters, sorts, search, a nested collection in every tenth) is
 * served by `api-server serve --schema`, against the built-in example in the same run: the time
 * from spawning the process to its first answer, on a fresh database (the start that makes every
 * table) and on the second start (nothing to change), and the resident memory once it answers.
 * Targets (issue 26): under 1 s to start, under 20 MiB more than the example. Writes the results
 * into docs/performance.md.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeResults } from './doc.ts'
import { BUN, startServer } from './processes.ts'

const ROOT = join(import.meta.dir, '..')
const DOC = join(ROOT, 'docs/performance.md')
const COLLECTIONS = 40
const ROUNDS = 5
const MIB = 1024 * 1024

/** Ten fields of every type and option, the same for each collection but for the names. */
function fieldsOf(parent?: string): Record<string, unknown> {
  return {
    title: { type: 'text', max: 200, sort: true, search: true },
    code: { type: 'text', max: 32, unique: true, filter: 'eq' },
    notes: { type: 'text', max: 5000, nullable: true, search: true },
    count: { type: 'integer', min: 0, filter: 'eq+range', sort: true },
    active: { type: 'boolean', default: true, filter: 'eq' },
    stage: { type: 'enum', values: ['draft', 'open', 'closed'], default: 'draft', filter: 'eq', sort: true },
    ownerId: { type: 'reference', to: 'users', filter: 'eq', nullable: true },
    dueAt: { type: 'timestamp', nullable: true, sort: true, filter: 'range' },
    extra: { type: 'json', nullable: true },
    ...(parent
      ? { [`${parent}Id`]: { type: 'reference', to: `${parent}s`, readOnly: true, filter: 'eq' } }
      : { tags: { type: 'list', default: [] } }),
  }
}

/** `things-a`, `things-b`, ...: collection names, singulars and prefixes that are all distinct. */
function largeSchema(): unknown {
  const letters = (n: number) => String.fromCharCode(97 + Math.floor(n / 26), 97 + (n % 26))
  const resources: Record<string, unknown> = {}
  for (let i = 0; i < COLLECTIONS; i++) {
    const tag = letters(i)
    const parentTag = i % 10 === 9 ? letters(i - 1) : undefined
    resources[`item${tag}s`] = {
      singular: `item${tag}`,
      prefix: `i${tag}`,
      ...(parentTag ? { parent: { collection: `item${parentTag}s`, field: `item${parentTag}Id` } } : {}),
      fields: fieldsOf(parentTag ? `item${parentTag}` : undefined),
      actions: {
        close: { field: 'stage', from: ['open'], to: 'closed', past: 'closed', summary: 'Close it' },
      },
    }
  }
  return { resources }
}

interface Start {
  ms: number
  rss: number
  /** After the OpenAPI document and the GraphQL schema are built (both on first use). */
  usedRss: number
}

const rssOf = (pid: number) =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024

async function start(name: string, db: string, schema?: string): Promise<Start> {
  const argv = [BUN, 'server/main.ts', 'serve', '--db', db, ...(schema ? ['--schema', schema] : [])]
  const began = performance.now()
  const server = await startServer(name, argv, { cwd: ROOT, env: { API_LOG_LEVEL: 'warn' } })
  const ms = performance.now() - began
  const rss = server.startRss
  await fetch(`${server.url}/api/v2/openapi.json`).then((r) => r.arrayBuffer())
  await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
  }).then((r) => r.arrayBuffer())
  const usedRss = rssOf(server.pid)
  await server.stop()
  return { ms, rss, usedRss }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-schema-'))
  const file = join(dir, 'large.schema.json')
  writeFileSync(file, JSON.stringify(largeSchema(), null, 2))
  const runs = {
    example: { first: [] as Start[], again: [] as Start[] },
    large: { first: [] as Start[], again: [] as Start[] },
  }
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating, so a slow spell of the shared machine weighs on both.
      for (const which of round % 2 === 0
        ? (['example', 'large'] as const)
        : (['large', 'example'] as const)) {
        const db = join(dir, `${which}-${round}.db`)
        const schema = which === 'large' ? file : undefined
        runs[which].first.push(await start(which, db, schema))
        runs[which].again.push(await start(which, db, schema))
        console.log(`bench: round ${round + 1}/${ROUNDS} ${which} done`)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const mib = (starts: Start[], key: 'rss' | 'usedRss') =>
    (median(starts.map((s) => s[key])) / MIB).toFixed(1)
  const row = (label: string, starts: Start[]) =>
    `| ${label} | ${Math.round(median(starts.map((s) => s.ms)))} ms | ${mib(starts, 'rss')} MiB | ${mib(starts, 'usedRss')} MiB |`
  const added =
    (median(runs.large.again.map((s) => s.rss)) - median(runs.example.again.map((s) => s.rss))) / MIB
  const addedUsed =
    (median(runs.large.again.map((s) => s.usedRss)) - median(runs.example.again.map((s) => s.usedRss))) / MIB
  const slowest = Math.max(
    median(runs.large.first.map((s) => s.ms)),
    median(runs.large.again.map((s) => s.ms)),
  )
  const text = [
    `Run of ${new Date().toISOString().slice(0, 10)}: \`bun server/main.ts serve\`, medians of ${ROUNDS} starts each, from spawning the process to its first answer; RSS once it answers, and again after one request for the OpenAPI document and one GraphQL query.`,
    '',
    '| server | start | RSS after start | RSS once OpenAPI and GraphQL are built |',
    '|---|---|---|---|',
    row('built-in example, fresh database', runs.example.first),
    row('built-in example, second start', runs.example.again),
    row(`${COLLECTIONS} collections x 10 fields, fresh database`, runs.large.first),
    row(`${COLLECTIONS} collections x 10 fields, second start`, runs.large.again),
    '',
    `Target: the large schema starts in under 1 s (slowest median: ${Math.round(slowest)} ms, ${slowest < 1000 ? 'met' : 'NOT met'}) and adds under 20 MiB to the RSS after start (it adds ${added.toFixed(1)} MiB, ${added < 20 ? 'met' : 'NOT met'}; ${addedUsed.toFixed(1)} MiB once its OpenAPI document and GraphQL schema are built on first use).`,
  ].join('\n')
  writeResults(DOC, 'schema', text)
  console.log(text)
}

if (import.meta.main) await main()
