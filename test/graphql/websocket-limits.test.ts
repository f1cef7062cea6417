import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { MAX_BODY_BYTES, MAX_JSON_DEPTH } from '../../server/http/limits.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { closedWithin, openRawSocket } from './raw-socket.ts'

// Each message over WebSocket is held to the limits of an HTTP body (docs/operations.md, "Size
// limits"); one over them closes the socket with 4400, as graphql-ws closes on a bad message.

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

/** A subscribe message whose variables hold `x`, written as given: three levels before `x`. */
const subscribe = (x: string) =>
  `{"id": "1", "type": "subscribe", "payload": {"query": "{ __typename }", "variables": {"x": ${x}}}}`
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('GraphQL over WebSocket: message limits', () => {
  const refused: [string, () => string, string][] = [
    ['over 1 MiB', () => subscribe(JSON.stringify('a'.repeat(MAX_BODY_BYTES))), `${MAX_BODY_BYTES} bytes`],
    [
      `nested deeper than ${MAX_JSON_DEPTH} levels`,
      () => subscribe(nested(MAX_JSON_DEPTH - 2)),
      `deeper than ${MAX_JSON_DEPTH} levels`,
    ],
    ['repeating a member name', () => subscribe('{"a": 1, "a": 2}'), 'payload.variables.x.a'],
  ]

  it.each(refused)('a message %s closes the socket with 4400 and says why', async (_, message, reason) => {
    const socket = await openRawSocket(server, acme)
    socket.ws.send(message())
    const event = await closedWithin(socket)
    socket.ws.close()
    expect(event).toEqual({ code: 4400, reason: expect.stringContaining(reason) })
  })

  it('a message at the limits is answered; a binary one over them closes the socket too', async () => {
    const socket = await openRawSocket(server, acme)
    // message, payload, variables and x take four levels: the arrays make MAX_JSON_DEPTH exactly.
    const padding = 'a'.repeat(MAX_BODY_BYTES - 1000)
    socket.ws.send(subscribe(`{"pad": "${padding}", "deep": ${nested(MAX_JSON_DEPTH - 4)}}`))
    expect(await socket.next()).toEqual({ id: '1', type: 'next', payload: { data: { __typename: 'Query' } } })
    socket.ws.send(new TextEncoder().encode(subscribe('{"a": 1, "a": 2}')))
    const event = await closedWithin(socket)
    socket.ws.close()
    expect(event).toEqual({ code: 4400, reason: expect.stringContaining('payload.variables.x.a') })
  })
})
