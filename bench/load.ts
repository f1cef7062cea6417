import autocannon from 'autocannon'
import { runWrk } from './wrk.ts'

export type LoadTool = 'autocannon' | 'wrk'

export interface LoadOptions {
  tool: LoadTool
  /** Origin of the server, `http://127.0.0.1:PORT`. */
  url: string
  /** Origins to split the connections between, when more than one (replicas). */
  urls?: string[]
  /** The path of the n-th request; lets GET by id rotate through a set of ids. */
  path: (n: number) => string
  headers: Record<string, string>
  /** GET when left out; a body is sent with every request. */
  method?: 'GET' | 'POST'
  body?: string
  connections: number
  durationS: number
}

/** What one run of the load generator saw. */
export interface LoadSample {
  /** 2xx responses. */
  requests: number
  /**
   * Latencies in milliseconds, each standing for `weight` responses: every response for
   * autocannon (weight 1), wrk's 1,000 quantiles otherwise.
   */
  latencies: number[]
  weight: number
  seconds: number
  /** Responses other than 2xx, plus connection errors and timeouts. */
  failures: number
  /** CPU the load generator used, in seconds. */
  cpuS: number
}

export interface LoadResult {
  requests: number
  rps: number
  p50: number
  p99: number
  failures: number
}

/** Runs one load generator against one endpoint (one per origin when `urls` names several). */
export async function runLoad(options: LoadOptions): Promise<LoadSample> {
  const one = (o: LoadOptions) => (o.tool === 'wrk' ? runWrk(o) : runAutocannon(o))
  const urls = options.urls ?? [options.url]
  if (urls.length === 1) return one(options)
  const connections = Math.ceil(options.connections / urls.length)
  const samples = await Promise.all(urls.map((url) => one({ ...options, url, urls: [url], connections })))
  return {
    requests: samples.reduce((sum, s) => sum + s.requests, 0),
    // Weighted points of both, as one sample of weight 1 each.
    latencies: samples.flatMap((s) => s.latencies.flatMap((ms) => Array(Math.round(s.weight)).fill(ms))),
    weight: 1,
    seconds: Math.max(...samples.map((s) => s.seconds)),
    failures: samples.reduce((sum, s) => sum + s.failures, 0),
    // autocannon runs in this process: each measured the same process over the same time.
    cpuS:
      options.tool === 'wrk'
        ? samples.reduce((sum, s) => sum + s.cpuS, 0)
        : Math.max(...samples.map((s) => s.cpuS)),
  }
}

async function runAutocannon(options: LoadOptions): Promise<LoadSample> {
  let n = 0
  const latencies: number[] = []
  let failures = 0
  const cpu = process.cpuUsage()
  const instance = autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationS,
    headers: options.headers,
    requests: [
      {
        method: options.method ?? 'GET',
        ...(options.body === undefined ? {} : { body: options.body }),
        setupRequest: (request) => ({ ...request, path: options.path(n++) }),
      },
    ],
  })
  // autocannon's own histogram has 1 ms resolution, too coarse for sub-millisecond answers.
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime)
    else failures++
  })
  const result = await instance
  const used = process.cpuUsage(cpu)
  return {
    requests: latencies.length,
    latencies,
    weight: 1,
    seconds: result.duration || options.durationS,
    failures: failures + result.errors + result.timeouts,
    cpuS: (used.user + used.system) / 1e6,
  }
}

/** Several runs against the same server as one: req/s over their total time, percentiles over all. */
export function summarize(samples: LoadSample[]): LoadResult {
  const points = samples
    .flatMap((s) => s.latencies.map((ms) => [ms, s.weight] as const))
    .sort((a, b) => a[0] - b[0])
  const totalWeight = points.reduce((sum, [, w]) => sum + w, 0)
  const percentile = (p: number) => {
    let seen = 0
    for (const [ms, w] of points) {
      seen += w
      if (seen >= (p / 100) * totalWeight) return ms
    }
    return Number.NaN
  }
  const requests = samples.reduce((sum, s) => sum + s.requests, 0)
  return {
    requests,
    rps: requests / samples.reduce((sum, s) => sum + s.seconds, 0),
    p50: percentile(50),
    p99: percentile(99),
    failures: samples.reduce((sum, s) => sum + s.failures, 0),
  }
}
