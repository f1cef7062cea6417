import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import type { LoadTool } from './load.ts'

/** A marked block of docs/performance.md: a load generator's read run, or another benchmark's. */
type Section =
  | LoadTool
  | 'postgres'
  | 'mix'
  | 'size'
  | 'schema'
  | 'writes'
  | 'aggregates'
  | 'import'
  | 'export'
  | 'targets'
  | 'targets-wrk'
  | 'targets-postgres'
  | `graphql-${LoadTool | 'postgres'}`

const markers = (tool: Section) => ({
  start: `<!-- bench:${tool}:start -->`,
  end: `<!-- bench:${tool}:end -->`,
})

function section(tool: Section, text: string): string {
  const { start, end } = markers(tool)
  return `${start}\n${text}\n${end}`
}

/** docs/performance.md as first written; runs then rewrite only their own marked block. */
const TEMPLATE = `# Performance

\`npm run bench\` measures the two hottest reads of the API through the real server and compares
them, in the same run, with a baseline that does nothing but run the same SQL: a raw \`Bun.serve\`
with \`bun:sqlite\` (\`bench/baseline-server.ts\`).

| endpoint | target |
|---|---|
| \`GET /api/v1/orders?status=paid&limit=20\` (default sort \`-created_at\`) | >= 70% of the baseline's req/s |
| \`GET /api/v1/orders/{id}\` | >= 60% of the baseline's req/s |

## Results

Each block between markers is rewritten by the command named in it; the rest of this file is not.

### autocannon (\`npm run bench\`)

${section('autocannon', 'Not measured yet: run `npm run bench`.')}

### wrk (\`npm run bench -- --wrk\`)

${section('wrk', 'Not measured yet: run `apt-get install -y wrk`, then `npm run bench -- --wrk`.')}

Columns: req/s and latencies count 2xx answers only (any other answer fails the run). Req/s per
server core divides by the CPU the server used: the inverse of its cost per request, which other
load on the machine sways less than req/s; its ratio is given next to the target's. p50/p99 are
computed from every response's own time (autocannon) or from 1,000 quantiles per run (wrk), not
autocannon's whole-millisecond histogram. Peak RSS is the server process's \`VmHWM\` read after
that endpoint, i.e. its peak since it started (both endpoints run against the same process, list
first). Server CPU and load-gen CPU are cores used during the measured rounds: a server near 1.0
is the bottleneck; a load generator near 1.0 means it was, and the baseline's req/s (the ratio's
denominator) is then a floor. Other CPU is what the rest of the machine used meanwhile (from
\`/proc/stat\`): with 2 cores, anything above a few hundredths took time from the server or from
the load generator.

## Method

- \`bench/build-database.ts\` builds 100,000 orders in 10 organizations (one user each, statuses
  cycling through the five values, created 30 s apart) through the engine's \`createRecord\`, one
  transaction per organization, so rows and their 100,000 events are what the API writes. The
  file is cached in \`bench/.cache/\` and reused while it holds the expected orders.
- Each run registers a fresh confidential client (\`read:orders\`) in the first organization and
  gets a token from \`POST /oauth/token\` (client credentials, HTTP Basic).
- The product (\`bun server/main.ts serve\`, default settings except \`API_RATE_LIMIT=1000000000\`:
  the limiter counts every request but refuses none) and the baseline run as separate processes
  on free 127.0.0.1 ports over the same file. Their standard output (the product's access log)
  goes to /dev/null. Before any load, both must list the same 20 orders and return the same JSON
  for one order.
- Load comes from autocannon, run inside the bench process with 32 connections; with
  \`npm run bench -- --wrk\`, from Debian's wrk (one thread, 32 connections; install it with
  \`apt-get install -y wrk\`). For each endpoint: a 2 s warm-up on each server, then 5 rounds of
  2 s that alternate between the product and the baseline (and which of them goes first), 10 s
  measured per server. The machine is shared and its speed drifts; alternating makes a slow spell
  weigh on both. Only one server is under load at a time. GET by id rotates through 1,000 random
  ids of the token's organization.
- Both servers are stopped at the end, also when the run fails.

What the baseline does not do, and the product's ratio therefore includes:

- no authentication: the product verifies the bearer JWT (cached per token after the first
  verification), looks the token up among revoked ones (\`SELECT 1 FROM oauth_revoked_tokens
  WHERE jti = ?\`, every request), checks the scope and the organization;
- no request validation beyond reading \`status\` and \`limit\`;
- no ETag or Last-Modified: the product hashes the body (SHA-256) for a strong ETag, and for
  lists needs the collection's last change, \`SELECT max(created_at) FROM events WHERE org_id = ?
  AND resource = ?\`, cached while \`PRAGMA data_version\` (asked on every list) does not move;
- no HMAC on the pagination cursor (same envelope: \`data\`, \`pagination\` with \`limit\`,
  \`hasMore\`, \`nextCursor\`, \`next\`, and \`filters\`);
- no edge: the product gives every request an id, counts it against the rate limit, adds its
  headers (request id, RateLimit, nosniff) and writes an access log line;
- no framework: the product routes through Elysia.

Both open the database in WAL mode with \`foreign_keys = ON\` and \`busy_timeout = 5000\` (the
baseline with \`synchronous = NORMAL\`, the product with its default \`FULL\`, which changes what a
commit costs, not a read; "Writes and durability" below measures writes) and run \`SELECT * FROM orders WHERE org_id = ? AND
status = ? ORDER BY created_at DESC, id DESC LIMIT 21\` and \`SELECT * FROM orders WHERE id = ?\`.
`

/**
 * Puts one load generator's results between its markers in `path`, keeping everything else; a
 * missing document is created first.
 */
export function writeResults(path: string, tool: Section, results: string): void {
  const doc = existsSync(path) ? readFileSync(path, 'utf8') : TEMPLATE
  const { start, end } = markers(tool)
  const from = doc.indexOf(start)
  const to = doc.indexOf(end)
  // Refuse rather than rewrite the whole file: the hand-written parts must survive a run.
  if (from < 0 || to < from) throw new Error(`${path} lacks the markers ${start} ... ${end}`)
  writeFileSync(path, `${doc.slice(0, from + start.length)}\n${results}\n${doc.slice(to)}`)
}
