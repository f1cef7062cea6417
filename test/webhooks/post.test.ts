/**
 * One attempt's POST against real receivers on loopback: it goes to the address that was checked
 * (no second lookup), follows no redirect, and reads at most 64 KiB of an answer.
 */
import { afterAll, expect, it } from 'bun:test'
import { postOnce } from '../../server/webhooks/post.ts'
import { resolveTarget } from '../../server/webhooks/target.ts'
import { WEBHOOK_DEFAULTS } from '../../server/webhooks/worker.ts'
import { type Receiver, startReceiver } from './receiver.ts'

const receivers: Receiver[] = []
afterAll(() => {
  for (const r of receivers) r.stop()
})
function receiver(answer?: Parameters<typeof startReceiver>[0]): Receiver {
  const r = startReceiver(answer)
  receivers.push(r)
  return r
}

it('connects to the address the check resolved, with the URL host as Host: DNS is not asked again', async () => {
  const r = receiver()
  const port = new URL(r.url).port
  // `.test` names never resolve: a second lookup by the system resolver would fail the attempt.
  const url = `http://hooks.test:${port}/hook?x=1`
  let lookups = 0
  const target = await resolveTarget(url, true, async () => {
    lookups += 1
    return ['127.0.0.1']
  })
  const result = await postOnce(target, '{"a":1}', { 'content-type': 'application/json' }, 2_000)
  expect(result).toEqual({ status: 204, error: null })
  expect(lookups).toBe(1)
  expect(r.received).toHaveLength(1)
  expect(r.received[0]!.headers.host).toBe(`hooks.test:${port}`)
  expect(r.received[0]!.body).toBe('{"a":1}')
})

it('does not follow a redirect: the attempt fails with the 3xx and the other side gets nothing', async () => {
  const elsewhere = receiver()
  const r = receiver(() => new Response(null, { status: 307, headers: { location: elsewhere.url } }))
  const target = await resolveTarget(r.url, true)
  const result = await postOnce(target, '{}', {}, 2_000)
  expect(result.status).toBe(307)
  expect(result.error).toBe(`redirect to ${elsewhere.url} not followed`)
  await Bun.sleep(100)
  expect(r.received).toHaveLength(1)
  expect(elsewhere.received).toHaveLength(0)
})

it('reads at most 64 KiB of an answer: an endless 200 body is a success at once', async () => {
  let sent = 0
  const chunk = new Uint8Array(16 * 1024).fill(120)
  const r = receiver(
    () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            sent += chunk.byteLength
            controller.enqueue(chunk)
          },
        }),
        { status: 200 },
      ),
  )
  const target = await resolveTarget(r.url, true)
  const started = performance.now()
  // Were the whole body read, the attempt would run into its timeout and fail.
  const result = await postOnce(target, '{}', {}, 5_000)
  expect(result).toEqual({ status: 200, error: null })
  expect(performance.now() - started).toBeLessThan(4_000)
  expect(sent).toBeGreaterThanOrEqual(64 * 1024)
})

it('a receiver that does not answer in time fails the attempt; the server waits 15 s', async () => {
  expect(WEBHOOK_DEFAULTS.attemptTimeoutMs).toBe(15_000)
  const r = receiver(() => new Promise<Response>(() => {}))
  const target = await resolveTarget(r.url, true)
  const started = performance.now()
  const result = await postOnce(target, '{}', {}, 300)
  expect(result).toEqual({ status: null, error: 'no answer within 0.3 s' })
  expect(performance.now() - started).toBeLessThan(2_000)
  expect(r.received).toHaveLength(1)
})

it('a port nobody listens on fails the attempt as "connection refused"', async () => {
  const closed = receiver()
  const url = closed.url
  closed.stop()
  const target = await resolveTarget(url, true)
  expect(await postOnce(target, '{}', {}, 2_000)).toEqual({ status: null, error: 'connection refused' })
})

it('a receiver that drops the connection without answering fails the attempt with a plain reason', async () => {
  const listener = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      data(socket) {
        socket.end()
      },
    },
  })
  try {
    const target = await resolveTarget(`http://127.0.0.1:${listener.port}/hook`, true)
    const result = await postOnce(target, '{}', {}, 2_000)
    expect(result.status).toBeNull()
    expect(['connection closed before an answer', 'connection reset by the other side']).toContain(
      result.error!,
    )
  } finally {
    listener.stop(true)
  }
})
