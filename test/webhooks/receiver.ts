/** A webhook receiver for tests: a real Bun.serve on a loopback port that records what it is sent. */
export interface Received {
  headers: Record<string, string>
  body: string
  /** When the request arrived, and when its answer was ready (`performance.now()`; null until then). */
  startedAt: number
  endedAt: number | null
}

export interface Receiver {
  url: string
  received: Received[]
  /** Resolves once `count` deliveries have arrived (fails after `timeoutMs`). */
  waitFor: (count: number, timeoutMs?: number) => Promise<Received[]>
  stop: () => void
}

/** `answer` decides each response (default 204); it sees how many arrived before this one. */
export function startReceiver(
  answer: (request: Request, index: number) => Response | Promise<Response> = () =>
    new Response(null, { status: 204 }),
): Receiver {
  const received: Received[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: async (request) => {
      const body = await request.text()
      const index = received.length
      const entry: Received = {
        headers: Object.fromEntries(request.headers),
        body,
        startedAt: performance.now(),
        endedAt: null,
      }
      received.push(entry)
      const response = await answer(request, index)
      entry.endedAt = performance.now()
      return response
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    received,
    waitFor: async (count, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} deliveries, got ${received.length} in ${timeoutMs} ms`)
        await Bun.sleep(20)
      }
      return received
    },
    stop: () => server.stop(true),
  }
}
