import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { type ServerSentEvent, serverSentEvents } from '../../shared/server-sent-events.ts'

/** The reader of a stream that hands `text` over in the given chunks. */
function readerOf(chunks: string[]): ReadableStreamDefaultReader<string> {
  return new ReadableStream<string>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  }).getReader()
}

async function messagesOf(chunks: string[]): Promise<ServerSentEvent[]> {
  const messages: ServerSentEvent[] = []
  for await (const message of serverSentEvents(readerOf(chunks))) messages.push(message)
  return messages
}

/** `text` cut at the given offsets. */
const cut = (text: string, at: number[]) => {
  const points = [...new Set(at.map((n) => n % (text.length + 1)))].sort((a, b) => a - b)
  return [0, ...points].map((from, i) => text.slice(from, points[i] ?? text.length))
}

const line = fc.stringMatching(/^[^\r\n]{0,20}$/)
const message = fc.record({
  event: fc.option(fc.constantFrom('next', 'complete', 'ping'), { nil: undefined }),
  lines: fc.array(line, { minLength: 1, maxLength: 3 }),
})

describe('server-sent events, as the CLI and the console read GraphQL subscriptions', () => {
  it('give the same messages however the stream is cut and whichever line ends it uses', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(message, { maxLength: 6 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (messages, eol, at) => {
          const text = messages
            .map((m) =>
              [...(m.event ? [`event: ${m.event}`] : []), ...m.lines.map((l) => `data: ${l}`)]
                .map((l) => l + eol)
                .join(''),
            )
            .map((block) => block + eol)
            .join('')
          expect(await messagesOf(cut(text, at))).toEqual(
            messages.map((m) => ({ event: m.event, data: m.lines.join('\n') })),
          )
        },
      ),
      { seed: 29, numRuns: 300 },
    )
  })

  it('keep what follows the colon less one space, ignore comments, and drop a message never ended', async () => {
    expect(
      await messagesOf([': keep-alive\n\n', 'event:next\ndata:{"a":1}\ndata:  two\n\n', 'data: cut off']),
    ).toEqual([
      { event: undefined, data: '' },
      { event: 'next', data: '{"a":1}\n two' },
    ])
  })

  it('end when a read fails, as when the connection drops', async () => {
    let pulls = 0
    const reader = new ReadableStream<string>({
      pull(controller) {
        if (pulls++ === 0) controller.enqueue('data: 1\n\n')
        else controller.error(new Error('connection reset'))
      },
    }).getReader()
    const messages: ServerSentEvent[] = []
    for await (const m of serverSentEvents(reader)) messages.push(m)
    expect(messages).toEqual([{ event: undefined, data: '1' }])
  })
})
