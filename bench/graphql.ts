/**
 * GraphQL against REST, for `npm run bench` (called by bench/run.ts once its endpoints are done):
 * the REST list's page (`GET /api/v1/orders?status=paid&limit=20`) and the GraphQL query that
 * asks for the same page and fields, on the same server, in alternating rounds; with the response
 * cache (`product`) and without (`product --no-cache`). The target: GraphQL >= 50% of REST's req/s.
 */
import { writeResults } from './doc.ts'
import type { LoadTool } from './load.ts'
import { measureWorkloads, type Schedule, type Workload, type WorkloadResult } from './measure.ts'
import type { ServerProcess } from './processes.ts'

const REST_LIST_PATH = '/api/v1/orders?status=paid&limit=20'
/** The REST page as GraphQL: the same 20 orders, every field of the REST record, and the cursor. */
const GRAPHQL_LIST_QUERY =
  'query PaidOrders { orders(status: [paid], first: 20) { nodes { id userId status amount currency createdAt updatedAt } pageInfo { hasNextPage endCursor } } }'
export const graphqlListBody = JSON.stringify({ query: GRAPHQL_LIST_QUERY })
/** GraphQL req/s over REST req/s the product must reach, cache on (as by default). */
export const GRAPHQL_TARGET = 0.5

interface Row {
  server: ServerProcess
  api: 'REST' | 'GraphQL'
  result: WorkloadResult
}

interface GraphQLRun {
  /** Console lines. */
  text: string
  /** GraphQL req/s over REST req/s per server name (`product`, `product --no-cache`). */
  ratios: Record<string, number>
  /** Writes the results into their marked block of docs/performance.md. */
  write: (doc: string, mode: LoadTool | 'postgres') => void
}

const graphqlRequest = (token: string) => ({
  path: () => '/graphql',
  method: 'POST' as const,
  body: graphqlListBody,
  headers: {
    Authorization: `Bearer ${token}`,
    'Content-Type': 'application/json',
    Accept: 'application/graphql-response+json',
  },
})

const restRequest = (token: string) => ({
  path: () => REST_LIST_PATH,
  headers: { Authorization: `Bearer ${token}` },
})

/** Both front doors must answer the same orders, in the same order, before their speed is compared. */
async function checkSameOrders(server: ServerProcess, token: string): Promise<void> {
  const rest = await fetch(`${server.url}${REST_LIST_PATH}`, { headers: restRequest(token).headers })
  const { method, body, headers } = graphqlRequest(token)
  const graphql = await fetch(`${server.url}/graphql`, { method, body, headers })
  if (rest.status !== 200 || graphql.status !== 200)
    throw new Error(`${server.name}: the lists answered ${rest.status} (REST), ${graphql.status} (GraphQL)`)
  const restBody = (await rest.json()) as { data?: Record<string, unknown>[] }
  const graphqlBody = (await graphql.json()) as {
    data?: { orders?: { nodes?: Record<string, unknown>[] } }
    errors?: unknown[]
  }
  if (graphqlBody.errors)
    throw new Error(`${server.name}: GraphQL answered ${JSON.stringify(graphqlBody.errors)}`)
  const restOrders = restBody.data ?? []
  const graphqlOrders = graphqlBody.data?.orders?.nodes ?? []
  const ids = (orders: Record<string, unknown>[]) => JSON.stringify(orders.map((o) => o.id))
  if (restOrders.length !== 20 || ids(restOrders) !== ids(graphqlOrders))
    throw new Error(`${server.name}: REST and GraphQL list different orders`)
  // The same fields too: GraphQL is asked for every field the REST record has.
  const fields = (orders: Record<string, unknown>[]) =>
    Object.keys(orders[0] ?? {})
      .sort()
      .join(' ')
  if (fields(restOrders) !== fields(graphqlOrders))
    throw new Error(
      `${server.name}: REST records have ${fields(restOrders)}, the GraphQL query asks for ${fields(graphqlOrders)}`,
    )
}

const pct = (ratio: number) => `${(ratio * 100).toFixed(0)}%`

function markdown(rows: Row[], ratios: Record<string, number>, schedule: Schedule, mode: string): string {
  const header = [
    'server',
    'API',
    'req/s',
    'req/s per server core',
    'p50 ms',
    'p99 ms',
    'server CPU',
    'other CPU',
  ]
  const table = [
    header,
    header.map(() => '---'),
    ...rows.map(({ server, api, result }) => [
      server.name,
      api,
      result.load.rps.toFixed(0),
      (result.load.rps / result.serverCores).toFixed(0),
      result.load.p50.toFixed(2),
      result.load.p99.toFixed(2),
      result.serverCores.toFixed(2),
      result.otherCores.toFixed(2),
    ]),
  ]
  const perCore = (server: string) => {
    const [rest, graphql] = [
      rows.find((r) => r.server.name === server && r.api === 'REST')!,
      rows.find((r) => r.server.name === server && r.api === 'GraphQL')!,
    ]
    return (
      graphql.result.load.rps / graphql.result.serverCores / (rest.result.load.rps / rest.result.serverCores)
    )
  }
  const verdict = (server: string) =>
    server === 'product'
      ? ` (target ${pct(GRAPHQL_TARGET)}): **${ratios[server]! >= GRAPHQL_TARGET ? 'met' : 'missed'}**`
      : ''
  return [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench${mode === 'autocannon' ? '' : ` -- --${mode}`}\` (${schedule.tool}, ${schedule.connections} connections, ${schedule.rounds} alternating rounds of ${schedule.roundS} s per row).`,
    '',
    ...table.map((row) => `| ${row.join(' | ')} |`),
    '',
    ...Object.entries(ratios).map(
      ([server, ratio]) =>
        `- ${server}: GraphQL serves **${pct(ratio)}** of REST's req/s${verdict(server)}; per server core ${pct(perCore(server))}.`,
    ),
  ].join('\n')
}

/**
 * Measures the list through REST and GraphQL on each of `servers` (the product with and without
 * its response cache), all four rows alternating.
 */
export async function benchGraphQL(
  servers: ServerProcess[],
  token: string,
  schedule: Schedule,
  log: (line: string) => void,
): Promise<GraphQLRun> {
  for (const server of servers) await checkSameOrders(server, token)
  const workloads: (Workload & Pick<Row, 'api'>)[] = servers.flatMap((server) => [
    { server, api: 'REST' as const, request: restRequest(token) },
    { server, api: 'GraphQL' as const, request: graphqlRequest(token) },
  ])
  const results = await measureWorkloads(workloads, schedule)
  const rows: Row[] = workloads.map(({ server, api }, i) => ({ server, api, result: results[i]! }))
  const ratios: Record<string, number> = {}
  for (const server of servers) {
    const rps = (api: Row['api']) => rows.find((r) => r.server === server && r.api === api)!.result.load.rps
    ratios[server.name] = rps('GraphQL') / rps('REST')
  }
  for (const { server, api, result } of rows)
    log(`${server.name} ${api} list: ${result.load.rps.toFixed(0)} req/s`)
  const text = Object.entries(ratios)
    .map(([server, ratio]) => `GraphQL list on ${server}: ${pct(ratio)} of REST's req/s`)
    .join('\n')
  return {
    text,
    ratios,
    write: (doc, mode) => writeResults(doc, `graphql-${mode}`, markdown(rows, ratios, schedule, mode)),
  }
}
