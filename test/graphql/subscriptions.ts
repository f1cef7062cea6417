import { createClient as createSseClient } from 'graphql-sse'
import { createClient as createWsClient } from 'graphql-ws'
import { CursorCodec } from '../../server/resources/cursor.ts'
import { createRecord } from '../../server/resources/writes.ts'
import { users } from '../../shared/resources/users.ts'
import type { Tenant, TestServer } from '../support/server.ts'
import type { Loose } from './support.ts'

/** An event as the subscription selects it. */
interface StreamedEvent {
  id: string
  type: string
  resourceId: string
  data: Record<string, unknown>
  createdAt: string
}

export const EVENTS = `subscription Events($types: [String!], $after: ID) {
  events(types: $types, after: $after) { id type resourceId data createdAt }
}`

export type Transport = 'sse' | 'ws'

/** One subscriber over a real client of either transport; `close` unsubscribes and disposes. */
interface Subscriber {
  next: (
    timeoutMs?: number,
  ) => Promise<IteratorResult<{ data?: { events: StreamedEvent }; errors?: unknown[] }>>
  take: (n: number, timeoutMs?: number) => Promise<StreamedEvent[]>
  close: () => Promise<void>
}

export function subscribe(
  server: TestServer,
  transport: Transport,
  token: string,
  variables: { types?: string[]; after?: string } = {},
  query = EVENTS,
): Subscriber {
  let iterator: AsyncIterableIterator<Loose>
  let dispose: () => Promise<void> | void
  if (transport === 'sse') {
    const client = createSseClient({
      url: `${server.url}/graphql`,
      headers: { Authorization: `Bearer ${token}` },
      retryAttempts: 0,
    })
    iterator = client.iterate({ query, variables })
    dispose = () => client.dispose()
  } else {
    const client = createWsClient({
      url: `${server.url.replace(/^http/, 'ws')}/graphql`,
      connectionParams: { Authorization: `Bearer ${token}` },
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    })
    iterator = client.iterate({ query, variables })
    dispose = () => client.dispose()
  }
  const next = (timeoutMs = 5000) =>
    Promise.race([
      iterator.next(),
      Bun.sleep(timeoutMs).then(() => {
        throw new Error(`no message within ${timeoutMs} ms`)
      }),
    ])
  return {
    next,
    take: async (n, timeoutMs) => {
      const events: StreamedEvent[] = []
      while (events.length < n) {
        const { value, done } = await next(timeoutMs)
        if (done) throw new Error(`the stream ended after ${events.length} events`)
        if (!value.data) throw new Error(`an error instead of an event: ${JSON.stringify(value)}`)
        events.push(value.data.events)
      }
      return events
    },
    close: async () => {
      await iterator.return?.()
      await dispose()
    },
  }
}

let serial = 0

/** Creates a user through REST; returns its id. */
export async function write(tenant: Tenant): Promise<string> {
  serial += 1
  const response = await tenant.fetch('/api/v1/users', {
    method: 'POST',
    json: { name: `User ${serial}`, email: `sub-${serial}-${Date.now()}@example.com` },
  })
  if (response.status !== 201) throw new Error(`create user: ${response.status}`)
  return ((await response.json()) as { id: string }).id
}

/**
 * Creates a user through a second database connection, as another process (an admin command,
 * another instance on the same file) would: the server learns of it only from the log.
 */
export async function writeFromOutside(server: TestServer, tenant: Tenant): Promise<string> {
  serial += 1
  const engine = {
    store: server.store,
    schema: server.store.schema,
    clock: Date.now,
    cursors: new CursorCodec(await server.store.settings.instanceSecret('cursor_key')),
  }
  const principal = {
    kind: 'client' as const,
    subject: tenant.clientId,
    orgId: tenant.orgId,
    clientId: tenant.clientId,
    scopes: new Set([users.scopes.write]),
    expiresAt: Date.now() / 1000 + 60,
  }
  const body = { name: `Outside ${serial}`, email: `outside-${serial}-${Date.now()}@example.com` }
  return (await createRecord(engine, principal, users, body)).id as string
}
