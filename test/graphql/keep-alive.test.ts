import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { EVENTS, subscribe, write } from './subscriptions.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

/** Longer than Bun's HTTP idle timeout (10 s) and than the SSE keep-alive interval (12 s). */
const IDLE_MS = 13_000

describe('idle subscriptions', () => {
  it(
    'stay open past idle timeouts on both transports, kept alive, and still deliver',
    async () => {
      // Yoga pings every 300 ms under NODE_ENV=test (bun test sets it); test the real 12 s.
      const env = process.env.NODE_ENV
      process.env.NODE_ENV = 'production'
      const sse = subscribe(server, 'sse', acme.token)
      const ws = subscribe(server, 'ws', acme.token)
      // A raw SSE stream, to see the keep-alive comments themselves.
      const raw = await acme.fetch('/graphql', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        json: { query: EVENTS },
      })
      expect(raw.headers.get('content-type')).toBe('text/event-stream')
      const reader = raw.body!.getReader()
      let text = ''
      const reading = (async () => {
        for (;;) {
          const { value, done } = await reader.read()
          if (done) return
          text += new TextDecoder().decode(value)
          if (text.includes('event: next')) return
        }
      })()
      await Bun.sleep(500)
      process.env.NODE_ENV = env
      await Bun.sleep(IDLE_MS - 500)
      // SSE comments (`:` lines) are the keep-alives: one at the start, then one every 12 s.
      expect(text.split('\n').filter((line) => line === ':')).toHaveLength(2)
      const id = await write(acme)
      const [fromSse] = await sse.take(1)
      const [fromWs] = await ws.take(1)
      await reading
      await reader.cancel()
      await sse.close()
      await ws.close()
      expect(fromSse!.resourceId).toBe(id)
      expect(fromWs!.resourceId).toBe(id)
      expect(text).toContain(id)
    },
    IDLE_MS + 15_000,
  )
})
