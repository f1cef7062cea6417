/** One message of a server-sent event stream: its `event` field, if any, and its `data` lines joined. */
export interface ServerSentEvent {
  event: string | undefined
  data: string
}

/** A field's value: what follows the colon, less one leading space (HTML, "Server-sent events", 9.2.6). */
const fieldValue = (line: string, field: string) => {
  const rest = line.slice(field.length + 1)
  return rest.startsWith(' ') ? rest.slice(1) : rest
}

/**
 * The messages of a `text/event-stream` body as they arrive, however its chunks split them: each
 * block ended by a blank line becomes one message. Lines may end in LF, CRLF or CR. Ends when
 * the stream ends; a read that fails (the connection dropped, the reader cancelled) ends it too,
 * so the caller decides what an end means. GraphQL over SSE (the CLI's `api graphql` and
 * `api webhooks listen`, the console's event log) reads its results through this.
 */
export async function* serverSentEvents(
  reader: ReadableStreamDefaultReader<string>,
): AsyncGenerator<ServerSentEvent> {
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }))
    buffer += done ? '' : value
    // A CR at the end may be the first half of a CRLF that the next chunk completes; at the end
    // of the stream it is a line end of its own.
    const cr = !done && buffer.endsWith('\r') ? '\r' : ''
    buffer = buffer.slice(0, buffer.length - cr.length).replace(/\r\n?/g, '\n') + cr
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      yield messageOf(block)
    }
    if (done) return
  }
}

function messageOf(block: string): ServerSentEvent {
  let event: string | undefined
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line === 'data' || line.startsWith('data:')) data.push(fieldValue(line, 'data'))
    else if (line.startsWith('event:')) event = fieldValue(line, 'event')
  }
  return { event, data: data.join('\n') }
}
