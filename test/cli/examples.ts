/**
 * Runs the examples the CLI teaches (each command's `--help`, docs/cli.md) as a reader would: in
 * bash, with `api` on the PATH, one block after another against a server with the demo data,
 * logged in as the demo admin. Placeholder ids (`ord_…`, `usr_01jd...`) become real ones.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { StoredLogin } from '../../cli/config.ts'
import { DEMO_USERS, seed } from '../../server/admin/seed.ts'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { codeFlow, discover } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { BUN, CLI, secret, tempDir } from './harness.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

/** One example as printed: one line, or lines that share a shell variable (`etag=$(...)`). */
export interface Example {
  /** Where it is taught: `api create --help`, `docs/cli.md:204`. */
  source: string
  lines: string[]
}

/** Examples taught together, run in one shell in order (a profile set up, then used). */
export interface Block {
  name: string
  examples: Example[]
}

/** What a test decides about a line: skipped (with why), or what its output must show. */
export interface Expectations {
  /** Lines not run, by their command without its comment, with the reason. */
  skipped: Record<string, { reason: string; standIn?: (home: string) => void }>
  /** Lines of `api list`/`api query` whose output may be empty, with the reason. */
  mayBeEmpty: Record<string, string>
}

/** The command of a line, without a trailing `# comment`. */
export const commandOf = (line: string) => line.replace(/\s+# .*$/, '').trim()

/** Groups lines into examples: a line that uses a variable an earlier one set joins it. */
export function examplesOf(source: (line: number) => string, lines: string[]): Example[] {
  const examples: Example[] = []
  let assigned: string[] = []
  for (const [i, line] of lines.entries()) {
    const last = examples.at(-1)
    if (last && assigned.some((name) => new RegExp(`\\$\\{?${name}\\b`).test(line))) last.lines.push(line)
    else {
      examples.push({ source: source(i), lines: [line] })
      assigned = []
    }
    const set = /^(\w+)=\$\(/.exec(line)?.[1]
    if (set) assigned.push(set)
  }
  return examples
}

/** The ```sh blocks of a Markdown file, `\` continuations joined, each line with its number. */
export function markdownBlocks(path: string, name: string): Block[] {
  const text = readFileSync(path, 'utf8').split('\n')
  const blocks: Block[] = []
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '```sh') continue
    const lines: { n: number; text: string }[] = []
    for (i++; text[i] !== '```'; i++) {
      const previous = lines.at(-1)
      if (previous?.text.endsWith('\\')) previous.text = `${previous.text.slice(0, -1)}${text[i]!.trim()}`
      else if (text[i]!.trim()) lines.push({ n: i + 1, text: text[i]! })
    }
    blocks.push({
      name: `${name}:${lines[0]!.n}`,
      examples: examplesOf(
        (k) => `${name}:${lines[k]!.n}`,
        lines.map((l) => l.text),
      ),
    })
  }
  return blocks
}

/** The lines of a help text's `Examples:` section. */
export const helpExamples = (help: string): string[] =>
  (help.split('\n\n').find((part) => part.startsWith('Examples:')) ?? '')
    .split('\n')
    .slice(1)
    .map((line) => line.trim())
    .filter(Boolean)

/** A server with the demo data, the demo admin's login, and files the examples name. */
export interface Stage {
  server: TestServer
  /** Where the examples run: `product.json`, `paid.sql`, `report.graphql` are there. */
  work: string
  admin: { id: string; token: string; login: StoredLogin }
  client: { id: string; secret: string }
  /** Collections the demo data fills. */
  filled: Set<string>
  stop: () => Promise<void>
}

export async function stage(): Promise<Stage> {
  const server = await startTestServer()
  await seed(server.store)
  const acme = (await server.store.orgs.find('Acme'))!
  const { client, secret: clientSecret } = await server.store.clients.create({
    name: 'Examples',
    orgId: acme.id,
    public: false,
  })
  const alice = DEMO_USERS[0]
  const tokens = await codeFlow(
    server,
    await discover(server, CLI_CLIENT_ID),
    'http://127.0.0.1:5000/callback',
    { email: alice.email, password: alice.password },
  )
  secret(tokens.access_token, tokens.refresh_token, clientSecret ?? undefined)
  const me = await fetch(`${server.url}/api/v2/users?email=${encodeURIComponent(alice.email)}`, {
    headers: { Authorization: `Bearer ${tokens.access_token}` },
  })
  const adminId = ((await me.json()) as { data: { id: string }[] }).data[0]!.id
  const filled = new Set<string>()
  for (const resource of SCHEMA.resources) {
    const page = await fetch(`${server.url}/api/v2/${resource.name}?limit=1`, {
      headers: { Authorization: `Bearer ${tokens.access_token}` },
    })
    if (((await page.json()) as { data?: unknown[] }).data?.length) filled.add(resource.name)
  }
  const work = tempDir('api-examples-')
  writeFileSync(join(work, 'api'), `#!/bin/sh\nexec '${BUN}' '${CLI}' "$@"\n`)
  chmodSync(join(work, 'api'), 0o755)
  const files = {
    'product.json': '{"name": "Lamp", "sku": "L-3", "price": {"value": 1999, "currency": "EUR"}}\n',
    'paid.sql': "SELECT id, amount FROM orders WHERE status = 'paid'\n",
    'report.graphql': 'query { orders(first: 5) { totalCount nodes { id status } } }\n',
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(join(work, name), text)
  return {
    server,
    work,
    admin: {
      id: adminId,
      token: tokens.access_token,
      // What `api login --web` leaves for the demo admin.
      login: {
        kind: 'web',
        clientId: CLI_CLIENT_ID,
        accessToken: tokens.access_token,
        refreshToken: tokens.refresh_token,
        expiresAt: Date.now() + (tokens.expires_in ?? 3600) * 1000,
        scope: String(tokens.scope ?? ''),
      },
    },
    client: { id: client.id, secret: clientSecret! },
    filled,
    stop: () => server.stop(),
  }
}
