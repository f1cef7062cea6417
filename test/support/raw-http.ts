import { connect } from 'node:net'

export interface RawAnswer {
  /** Every byte the server sent, as Latin-1 text. */
  text: string
  /** The status line's code, or undefined when nothing came back. */
  status?: number
  /** Header names in lower case; repeated ones joined by ", ". */
  headers: Record<string, string>
  body: string
  /** Whether the server closed the connection (rather than the wait running out). */
  closed: boolean
}

/**
 * Sends `bytes` as they are on a new TCP connection to the server of `url` and reads until the
 * server closes it (or `ms` pass): what fetch and curl would normalise (no Host, two Host lines,
 * an unknown method) reaches the server exactly as written. Send `Connection: close` or HTTP/1.0
 * so that the server closes after its answer.
 */
export function rawExchange(url: string, bytes: string, ms = 5000): Promise<RawAnswer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const chunks: Buffer[] = []
    const timer = setTimeout(() => finish(false), ms)
    const finish = (closed: boolean) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(parse(Buffer.concat(chunks).toString('latin1'), closed))
    }
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('close', () => finish(true))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the answer is still the server closing; a refused connection is not.
      if (error.code === 'ECONNRESET') finish(true)
      else reject(error)
    })
    socket.write(Buffer.from(bytes, 'latin1'))
  })
}

function parse(text: string, closed: boolean): RawAnswer {
  const end = text.indexOf('\r\n\r\n')
  const head = end === -1 ? text : text.slice(0, end)
  const [statusLine = '', ...lines] = head.split('\r\n')
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon === -1) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value
  }
  return {
    text,
    status: status === undefined ? undefined : Number(status),
    headers,
    body: end === -1 ? '' : text.slice(end + 4),
    closed,
  }
}
