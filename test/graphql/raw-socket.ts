import type { Tenant, TestServer } from '../support/server.ts'

interface RawSocket {
  ws: WebSocket
  /** Every message received, parsed. */
  messages: { type: string; id?: string; payload?: unknown }[]
  closed: Promise<{ code: number; reason: string }>
  /** The first `next` message, waiting at most `ms`. */
  next: (ms?: number) => Promise<unknown>
}

/**
 * A graphql-transport-ws socket past `connection_ack`, on which a test sends raw text: what the
 * graphql-ws client cannot write (repeated names, oversized or deeply nested messages).
 */
export async function openRawSocket(server: TestServer, tenant: Tenant): Promise<RawSocket> {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws')
  const messages: RawSocket['messages'] = []
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })),
  )
  const acked = new Promise<void>((resolve) =>
    ws.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as RawSocket['messages'][number]
      messages.push(message)
      if (message.type === 'connection_ack') resolve()
    }),
  )
  await new Promise((resolve) => ws.addEventListener('open', resolve))
  ws.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${tenant.token}` } }))
  await acked
  const next = async (ms = 2000) => {
    for (let waited = 0; waited < ms; waited += 20) {
      const found = messages.find((m) => m.type === 'next')
      if (found) return found
      await Bun.sleep(20)
    }
    return undefined
  }
  return { ws, messages, closed, next }
}

/** How the socket closed, or 'still open' after `ms`. */
export const closedWithin = (socket: RawSocket, ms = 3000) =>
  Promise.race([socket.closed, Bun.sleep(ms).then(() => 'still open' as const)])
