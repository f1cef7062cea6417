import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { methodNotAllowed } from '../../shared/errors.ts'
import { PRODUCT_VERSION } from '../../shared/version.ts'
import { noContent } from '../http/responses.ts'
import type { Store } from '../store/store.ts'
import { RouteTemplates, UNMATCHED } from './route-templates.ts'
import { scrapeAccess } from './scrape-access.ts'
import { registerStoreMetrics } from './store-metrics.ts'

/** The path Prometheus scrapes; its own requests are counted under it. */
const METRICS_PATH = '/metrics'

const SCRAPE_METHODS = ['GET', 'HEAD', 'OPTIONS']

/** Request latency, from a millisecond (a cached read) to ten seconds. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** What a webhook attempt came to: delivered, to be tried again, or given up. */
type AttemptOutcome = 'succeeded' | 'pending' | 'failed'

/**
 * prom-client's default metrics (CPU, memory, file descriptors, event-loop lag) describe the
 * process, not a server: they are made once per process, on a registry of their own (never the
 * global one), and shown beside each server's. Made per server, each would start an event-loop
 * monitor of its own, a 10 ms timer that outlives the server.
 */
let processRegistry: Registry | undefined
function processMetrics(): Registry {
  if (processRegistry) return processRegistry
  processRegistry = new Registry()
  collectDefaultMetrics({ register: processRegistry })
  // prom-client names three gauges `_total`, a suffix Prometheus keeps for counters (promtool's
  // lint refuses them); the same numbers, by type, stay in their namesakes without it.
  for (const name of [
    'nodejs_active_handles_total',
    'nodejs_active_requests_total',
    'nodejs_active_resources_total',
  ])
    processRegistry.removeSingleMetric(name)
  return processRegistry
}

interface MetricsOptions {
  store: Store
  /** `--metrics-token`: a bearer token that may read `/metrics` from anywhere. */
  token?: string
}

/**
 * One server's metrics on a registry of its own (never prom-client's global one, so two servers in
 * one process keep theirs apart), in Prometheus' text format at `/metrics` (docs/operations.md,
 * "Metrics"). Every label is bounded: routes are the router's templates, or `unmatched`.
 */
export class ServerMetrics {
  private readonly registry = new Registry()
  /** This server's families and the process's, as a scrape shows them. */
  private readonly exposed: Registry
  private routes = new RouteTemplates([])
  private readonly mayScrape: (request: Request) => boolean
  /**
   * Each label set's counter and histogram, found once: prom-client checks and hashes the labels
   * on every call otherwise. As bounded as the labels themselves.
   */
  private readonly series = new Map<string, { count: { inc(): void }; time: { observe(v: number): void } }>()
  private readonly requests = new Counter({
    name: 'api_http_requests_total',
    help: 'Requests answered, by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  })
  private readonly latency = new Histogram({
    name: 'api_http_request_duration_seconds',
    help: 'Time from a request reaching the server to its answer being ready, by route template, method and status class.',
    labelNames: ['route', 'method', 'status_class'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [this.registry],
  })
  private readonly cache = new Counter({
    name: 'api_response_cache_lookups_total',
    help: 'Reads looked up in the response cache, by result (hit: answered from memory; miss: read from the database).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  })
  private readonly hits = this.cache.labels('hit')
  private readonly misses = this.cache.labels('miss')
  private readonly rateLimited = new Counter({
    name: 'api_rate_limited_requests_total',
    help: 'Requests refused with 429 because their quota was spent.',
    registers: [this.registry],
  })
  private readonly attempts = new Counter({
    name: 'api_webhook_delivery_attempts_total',
    help: 'Webhook attempts this replica made, by outcome (succeeded; pending: failed, to be retried; failed: the last one, given up).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  })

  constructor(options: MetricsOptions) {
    this.mayScrape = scrapeAccess(options.token)
    new Gauge({
      name: 'api_build_info',
      help: 'The running build: always 1, its version and runtime in the labels.',
      labelNames: ['version', 'runtime'] as const,
      registers: [this.registry],
    }).set({ version: PRODUCT_VERSION, runtime: `bun ${Bun.version}` }, 1)
    // Zero from the start, so that a rate over them exists before the first hit or refusal.
    this.hits.inc(0)
    this.misses.inc(0)
    this.rateLimited.inc(0)
    for (const outcome of ['succeeded', 'pending', 'failed'] as const) this.attempts.labels(outcome).inc(0)
    registerStoreMetrics(this.registry, options.store)
    this.exposed = Registry.merge([this.registry, processMetrics()])
  }

  /** The router's paths (route templates), known once every route is mounted. */
  useRoutes(templates: Iterable<string>): void {
    this.routes = new RouteTemplates(templates)
  }

  /** Counts one answered request under its route template; `path` is its URL's pathname. */
  answered(method: string, path: string, status: number, seconds: number): void {
    let route = this.routes.match(path)
    // `/metrics` is no route of the router: its answers to a reader allowed count under it, and a
    // refusal (404) counts as the unknown path it pretends to be.
    if (route === UNMATCHED && path === METRICS_PATH && status !== 404) route = METRICS_PATH
    const key = `${route} ${method} ${status}`
    let series = this.series.get(key)
    if (series === undefined) {
      series = {
        count: this.requests.labels(route, method, String(status)),
        time: this.latency.labels(route, method, `${Math.floor(status / 100)}xx`),
      }
      this.series.set(key, series)
    }
    series.count.inc()
    series.time.observe(seconds)
  }

  /** A response-cache lookup: answered from memory (`hit`) or not. */
  cacheLookup(hit: boolean): void {
    ;(hit ? this.hits : this.misses).inc()
  }

  /** A request refused with 429. */
  limited(): void {
    this.rateLimited.inc()
  }

  /** A webhook attempt's outcome. */
  attempted(outcome: AttemptOutcome): void {
    this.attempts.labels(outcome).inc()
  }

  /**
   * The answer to a request for `/metrics` from a reader allowed; undefined for any other request,
   * which the router answers (404 for `/metrics`: as if there were no such path).
   */
  scrape(request: Request, path: string): Promise<Response> | undefined {
    if (path !== METRICS_PATH || !this.mayScrape(request)) return undefined
    return this.exposition(request.method)
  }

  private async exposition(method: string): Promise<Response> {
    if (method === 'OPTIONS') return noContent({ Allow: SCRAPE_METHODS.join(', ') })
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(SCRAPE_METHODS)
    const text = await this.exposed.metrics()
    return new Response(method === 'HEAD' ? null : text, {
      headers: {
        'Content-Type': this.exposed.contentType,
        'Content-Length': String(Buffer.byteLength(text)),
        'Cache-Control': 'no-store',
      },
    })
  }
}
