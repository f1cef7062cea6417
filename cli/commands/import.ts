import { existsSync, statSync } from 'node:fs'
import { sha256Hex } from '../../shared/crypto.ts'
import { ApiError } from '../../shared/errors.ts'
import type { Context } from '../context.ts'
import { UsageError } from '../errors.ts'
import { parseBody } from '../http.ts'
import {
  type ImportTally,
  interruptedLine,
  progressLine,
  summaryLine,
  summaryOf,
} from '../import/progress.ts'
import { type FileRecord, formatOfName, type InputFormat, RecordSplitter } from '../import/records.ts'
import { parseTarget } from '../resources.ts'

/** The server takes at most 1,000 records and 1 MiB a request; a chunk stays under both. */
const MAX_CHUNK_RECORDS = 1000
const DEFAULT_CHUNK_RECORDS = 500
const MAX_CHUNK_BYTES = 900 * 1024
const MEDIA: Record<InputFormat, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' }
/** How often the progress line is redrawn. */
const REDRAW_MS = 100

/** How `-` (standard input) reaches the command: the option parser would drop a lone `-`. */
export const STDIN_FILE = '/dev/stdin'

interface Chunk {
  index: number
  records: FileRecord[]
  /** Records of the file before this chunk's first (the header excluded). */
  before: number
  bytes: number
}

function chunkSizeOf(given: unknown): number {
  if (given === undefined) return DEFAULT_CHUNK_RECORDS
  const n = Number(given)
  if (!Number.isInteger(n) || n < 1 || n > MAX_CHUNK_RECORDS)
    throw new UsageError(`--chunk-size takes 1 to ${MAX_CHUNK_RECORDS} records`)
  return n
}

function formatOf(file: string, given: unknown): InputFormat {
  if (given !== undefined) {
    if (given === 'csv' || given === 'ndjson') return given
    throw new UsageError('--format of api import is csv or ndjson')
  }
  const found = formatOfName(file)
  if (found) return found
  throw new UsageError(
    `cannot tell the format of ${file === STDIN_FILE ? 'standard input' : file}: name it .csv, .ndjson or .jsonl, or give --format csv|ndjson`,
  )
}

/** The file's text as it streams in (standard input for `-`). */
async function* pieces(file: string): AsyncGenerator<{ text: string; bytes: number }> {
  const reader = (file === STDIN_FILE ? Bun.stdin.stream() : Bun.file(file).stream()).getReader()
  const decoder = new TextDecoder()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    yield { text: decoder.decode(value, { stream: true }), bytes: value.byteLength }
  }
  yield { text: decoder.decode(), bytes: 0 }
}

/**
 * The server's error about a chunk with its rows named by their place in the file: `rows[3].pages`
 * of a chunk that starts at the file's 12,342nd record is `row 12345 (line 12346): pages`.
 */
function inFile(error: ApiError, chunk: Chunk, imported: number): ApiError {
  const details = error.details.map(({ field, message }) => {
    const match = /^rows\[(\d+)\](?:\.(.+))?$/s.exec(field)
    const record = match ? chunk.records[Number(match[1])] : undefined
    if (!match || !record) return { field, message }
    const place = `row ${chunk.before + Number(match[1]) + 1} (line ${record.line})`
    return { field: match[2] ? `${place}: ${match[2]}` : place, message }
  })
  // The server counts the chunk's rows (`Row 3: ...`); the details say where in the file.
  const said = error.message
    .replace(/^Row \d+: /, '')
    .replace(/[;.]?\s*nothing was written\.?$/i, '')
    .replace(/\.$/, '')
  const message = `${said}. ${imported} records were imported before this chunk; nothing of it was written.`
  // new ApiError: the server's error, of its code, in the file's words.
  return Object.assign(new ApiError(error.code, message, { details }), { status: error.status })
}

/**
 * `api import COLLECTION FILE`: sends a CSV or NDJSON file in chunks (docs/bulk.md, "`api
 * import`"), each with an Idempotency-Key derived from the file and the chunk, so a re-run after an
 * interruption creates nothing twice. A progress line on a terminal; a summary at the end (JSON when
 * stdout is piped). `--dry-run` validates every row without writing.
 */
export async function importFile(
  ctx: Context,
  spec: string,
  given: string,
  options: Record<string, unknown>,
): Promise<void> {
  const file = given === '-' ? STDIN_FILE : given
  const target = parseTarget(ctx.schema, ctx.prefix, spec)
  if (target.id) throw new UsageError(`api import takes a collection, not a record (${spec})`)
  const format = formatOf(file, options.inputFormat)
  const chunkSize = chunkSizeOf(options.chunkSize)
  const dryRun = options.dryRun === true
  if (file !== STDIN_FILE && !existsSync(file)) throw new UsageError(`no file ${file}`)
  const { io } = ctx
  const tally: ImportTally = {
    created: 0,
    already: 0,
    validated: 0,
    chunks: 0,
    bytes: 0,
    totalBytes: file === STDIN_FILE ? null : statSync(file).size,
    startedMs: io.now(),
  }
  let drawn = 0
  const draw = (force = false) => {
    if (!io.stderrIsTTY || (!force && io.now() - drawn < REDRAW_MS)) return
    drawn = io.now()
    io.stderr(`\r${progressLine(tally, drawn, io.columns)}\x1b[K`)
  }
  const path = dryRun ? `${target.path}?validate_only=true` : target.path
  let header: string | null = null
  const send = async (chunk: Chunk) => {
    const lines = chunk.records.map((r) => r.text)
    const body = `${header === null ? '' : `${header}\n`}${lines.join('\n')}\n`
    const key = sha256Hex(`${target.path}\n${format}\n${header ?? ''}\n${chunk.index}\n${body}`)
    const response = await ctx.api().send('POST', path, {
      body,
      headers: { 'Content-Type': MEDIA[format], 'Idempotency-Key': key },
    })
    const replayed = response.headers.get('idempotent-replayed') === 'true'
    try {
      await parseBody(response)
    } catch (error) {
      if (io.stderrIsTTY) io.stderr('\n')
      throw error instanceof ApiError ? inFile(error, chunk, tally.created + tally.already) : error
    }
    const n = chunk.records.length
    if (dryRun) tally.validated += n
    else if (replayed) tally.already += n
    else tally.created += n
    tally.chunks++
    tally.bytes += chunk.bytes
    draw()
  }
  const splitter = new RecordSplitter(format)
  let chunk: Chunk = { index: 0, records: [], before: 0, bytes: 0 }
  let size = 0
  // One chunk in flight while the next is read: the file is read while the server writes.
  let inFlight: Promise<void> = Promise.resolve()
  let failure: { error: unknown } | undefined
  const settled = async () => {
    await inFlight
    if (failure) throw failure.error
  }
  const flush = async () => {
    if (chunk.records.length === 0) return
    await settled()
    inFlight = send(chunk).catch((error: unknown) => {
      failure = { error }
    })
    chunk = { index: chunk.index + 1, records: [], before: chunk.before + chunk.records.length, bytes: 0 }
    size = 0
  }
  const take = async (records: FileRecord[], bytes: number) => {
    chunk.bytes += bytes
    for (const record of records) {
      if (format === 'csv' && header === null) {
        header = record.text
        continue
      }
      if (chunk.records.length === chunkSize || (size > 0 && size + record.text.length > MAX_CHUNK_BYTES))
        await flush()
      chunk.records.push(record)
      size += record.text.length + 1
    }
  }
  // Before the exit every command gets on Ctrl-C (cli/main.ts): say how far the import got.
  const interrupted = () => io.stderr(`${io.stderrIsTTY ? '\n' : ''}${interruptedLine(tally, dryRun)}\n`)
  process.prependListener('SIGINT', interrupted)
  try {
    for await (const piece of pieces(file)) await take(splitter.push(piece.text), piece.bytes)
    await take(splitter.end(), 0)
    await flush()
    await settled()
  } finally {
    process.off('SIGINT', interrupted)
  }
  if (tally.chunks === 0)
    throw new UsageError(`${file === STDIN_FILE ? 'standard input' : file} holds no records`)
  draw(true)
  if (io.stderrIsTTY) io.stderr('\n')
  const now = io.now()
  if (io.stdoutIsTTY) io.stdout(`${summaryLine(tally, now, target.resource.name, dryRun)}\n`)
  else io.stdout(`${JSON.stringify(summaryOf(tally, now, dryRun))}\n`)
}
