import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { subscribe, type Transport, write, writeFromOutside } from './subscriptions.ts'
import { shortLivedToken } from './support.ts'

let server: TestServer
let acme: Tenant
let globex: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
  globex = await server.tenant()
})
afterAll(() => server.stop())

/** Lets a new subscriber reach the server before anything is written. */
const settle = () => Bun.sleep(300)

const transports: Transport[] = ['sse', 'ws']

describe.each(transports)(
  'subscription { events } over %s (the real graphql-sse / graphql-ws client)',
  (transport) => {
    it("streams the organization's events as they are appended, in order", async () => {
      const subscriber = subscribe(server, transport, acme.token)
      await settle()
      const ids = [await write(acme), await write(acme), await write(acme)]
      const events = await subscriber.take(3)
      await subscriber.close()
      expect(events.map((e) => e.resourceId)).toEqual(ids)
      for (const event of events) {
        expect(event.type).toBe('user.created')
        expect(event.id).toMatch(/^evt_/)
        expect(event.data.id).toBe(event.resourceId)
        expect(event.createdAt).toMatch(/Z$/)
      }
    })

    it('streams only the types asked for', async () => {
      const subscriber = subscribe(server, transport, acme.token, { types: ['user.updated'] })
      await settle()
      const id = await write(acme)
      await acme.fetch(`/api/v1/users/${id}`, { method: 'PATCH', json: { name: 'Renamed' } })
      const [event] = await subscriber.take(1)
      await subscriber.close()
      expect(event).toMatchObject({ type: 'user.updated', resourceId: id })
      expect(event!.data.name).toBe('Renamed')
    })

    it('gives a subscriber that reconnects with after every event it missed, in order, none twice', async () => {
      const first = subscribe(server, transport, acme.token)
      await settle()
      const before = [await write(acme), await write(acme)]
      const seen = await first.take(2)
      await first.close()
      // Written while nobody listens: some through this server, some by "another process".
      const missed = [
        await write(acme),
        await writeFromOutside(server, acme),
        await write(acme),
        await writeFromOutside(server, acme),
      ]
      const second = subscribe(server, transport, acme.token, { after: seen.at(-1)!.id })
      const replayed = await second.take(4)
      const live = await write(acme)
      const [next] = await second.take(1)
      await second.close()
      expect(seen.map((e) => e.resourceId)).toEqual(before)
      expect(replayed.map((e) => e.resourceId)).toEqual(missed)
      expect(next!.resourceId).toBe(live)
      const all = [...seen, ...replayed, next!].map((e) => e.id)
      expect(new Set(all).size).toBe(all.length)
    })

    it('sees appends made by another process on the same database', async () => {
      const subscriber = subscribe(server, transport, acme.token)
      await settle()
      const id = await writeFromOutside(server, acme)
      const [event] = await subscriber.take(1)
      await subscriber.close()
      expect(event!.resourceId).toBe(id)
    })

    it("never streams another organization's events", async () => {
      const subscriber = subscribe(server, transport, globex.token)
      await settle()
      await write(acme)
      const own = await write(globex)
      const [event] = await subscriber.take(1)
      await subscriber.close()
      expect(event!.resourceId).toBe(own)
    })

    const refusals: [string, () => Promise<{ token: string; after?: string }>, string][] = [
      [
        'an after of another organization',
        async () => ({ token: globex.token, after: await lastEventId(acme) }),
        'BAD_USER_INPUT',
      ],
      [
        'an after that names no event',
        async () => ({ token: acme.token, after: 'evt_7zzzzzzzzzzzzzzzzzzzzzzzzz' }),
        'BAD_USER_INPUT',
      ],
      [
        'a token without read:events',
        async () => ({ token: (await server.tenant({ scope: ['read:users'] })).token }),
        'FORBIDDEN',
      ],
    ]
    it.each(refusals)('refuses %s with an error', async (_, setup, code) => {
      const { token, after } = await setup()
      const subscriber = subscribe(server, transport, token, after ? { after } : {})
      const { value } = await subscriber.next()
      await subscriber.close()
      expect(value.data ?? null).toBeNull()
      expect((value.errors as { extensions: { code: string } }[]).map((e) => e.extensions.code)).toEqual([
        code,
      ])
    })

    it('ends the stream cleanly when the token expires', async () => {
      const token = await shortLivedToken(server, acme, 2, ['read:events', 'read:users'])
      const subscriber = subscribe(server, transport, token)
      await settle()
      const id = await write(acme)
      const [event] = await subscriber.take(1)
      expect(event!.resourceId).toBe(id)
      const started = Date.now()
      const end = await subscriber.next(5000)
      await subscriber.close()
      expect(end.done).toBe(true)
      expect(Date.now() - started).toBeLessThan(4000)
    })
  },
)

async function lastEventId(t: Tenant): Promise<string> {
  const response = await t.fetch('/api/v1/events?limit=1')
  return ((await response.json()) as { data: { id: string }[] }).data[0]!.id
}
