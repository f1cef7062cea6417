/**
 * Batches are all or nothing through `kill -9` (docs/bulk.md, "Atomic batches"): writers send
 * batches of N book creates, each batch's books carrying its own marker (`pages` = the batch's
 * number), while the server is killed with SIGKILL at random moments and restarted, cycle after
 * cycle. Afterwards the database holds 0 or N books of every batch, N of every batch answered 200,
 * and an event for every book. A reader polling a batch's marker meanwhile never sees a part of
 * one. On SQLite the reader asks the one server; under `npm run test:postgres` two replicas serve
 * one database, the writers' is the one killed, and the reader asks the other.
 */

import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminDatabase, ROOT, runOk, type ServeProcess, startServe } from '../admin/run.ts'
import { onPostgres, postgresTestSql, sqliteTestSql, type TestSql } from '../support/backend.ts'
import { clientToken } from '../support/tokens.ts'

const SCHEMA = join(ROOT, 'test/schema/files/library.json')
/** Creates per batch, writers sending at once, and kill-and-restart cycles. */
const N = 8
const WRITERS = 4
const CYCLES = Number(process.env.BATCH_CRASH_CYCLES ?? 3)

const ISSUER = 'http://batch-crash.test'
const dir = mkdtempSync(join(tmpdir(), 'api-batch-crash-'))
const running: ServeProcess[] = []

afterAll(async () => {
  for (const server of running) if (server.proc.exitCode === null) server.proc.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

const serve = async (db: string) => {
  // One issuer for every start and replica: a token stays good across restarts, on a new port.
  const args = ['--port', '0', '--db', db, '--schema', SCHEMA, '--rate-limit', '0', '--base-url', ISSUER]
  const server = await startServe(args)
  running.push(server)
  return server
}

async function kill(server: ServeProcess): Promise<void> {
  server.proc.kill('SIGKILL')
  await server.proc.exited
}

const between = (low: number, high: number) => low + Math.random() * (high - low)

describe(`batches through kill -9 (${onPostgres ? 'PostgreSQL, two replicas' : 'SQLite'})`, () => {
  it('leaves 0 or N records of every batch, N of every batch answered 200, and no reader sees a part', async () => {
    const db = await adminDatabase(dir, 'crash')
    const admin = async (...args: string[]) =>
      JSON.parse(await runOk([...args, '--json', '--schema', SCHEMA], db)) as Record<string, string>
    const org = (await admin('org', 'create', '--name', 'Crash')).id!
    const client = await admin('client', 'create', '--name', 'crash', '--org', org)
    let writer = await serve(db)
    // The reader's replica stays up; on SQLite the one server is both.
    const readerServer = onPostgres ? await serve(db) : undefined
    const token = await clientToken(writer.url, { id: client.client_id!, secret: client.client_secret! })
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }
    const author = await fetch(`${writer.url}/api/v2/authors`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Crash' }),
    })
    const authorId = ((await author.json()) as { id: string }).id

    let up = true
    let stopping = false
    let next = 0
    const acknowledged = new Set<number>()
    const sent = new Set<number>()
    const inFlight = new Set<number>()
    const unexpected: string[] = []
    const partial: string[] = []
    let reads = 0
    const operations = (k: number) =>
      Array.from({ length: N }, (_, i) => ({
        method: 'POST',
        path: '/api/v2/books',
        body: { title: `batch ${k}`, authorId, pages: k, isbn: `c${k}-${i}` },
      }))

    const write = async () => {
      while (!stopping) {
        if (!up) {
          await Bun.sleep(5)
          continue
        }
        const k = ++next
        sent.add(k)
        inFlight.add(k)
        const response = await fetch(`${writer.url}/api/v2/batch`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ operations: operations(k) }),
          signal: AbortSignal.timeout(10_000),
        }).catch(() => null)
        inFlight.delete(k)
        if (response?.status === 200) acknowledged.add(k)
        else if (response) unexpected.push(`batch ${k}: ${response.status} ${await response.text()}`)
      }
    }
    const read = async () => {
      while (!stopping) {
        const pending = [...inFlight]
        const k = pending[Math.floor(Math.random() * pending.length)]
        const url = readerServer?.url ?? (up ? writer.url : undefined)
        if (k === undefined || url === undefined) {
          await Bun.sleep(2)
          continue
        }
        const page = await fetch(`${url}/api/v2/books?pages=${k}&limit=100`, { headers }).catch(() => null)
        if (page?.status !== 200) continue
        const seen = ((await page.json()) as { data: unknown[] }).data.length
        reads += 1
        if (seen !== 0 && seen !== N) partial.push(`batch ${k}: a reader saw ${seen} of ${N}`)
      }
    }

    const load = [...Array.from({ length: WRITERS }, write), read()]
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await Bun.sleep(between(150, 450))
      up = false
      await kill(writer)
      writer = await serve(db)
      up = true
    }
    await Bun.sleep(between(100, 200))
    stopping = true
    await Promise.all(load)

    const sql: TestSql = onPostgres ? postgresTestSql(db) : sqliteTestSql(new Database(db))
    try {
      const counts = new Map(
        (
          await sql.all<{ pages: number; n: number }>('SELECT pages, count(*) AS n FROM books GROUP BY pages')
        ).map((row) => [Number(row.pages), Number(row.n)]),
      )
      const broken = [...sent].filter((k) => ![0, N].includes(counts.get(k) ?? 0))
      const lost = [...acknowledged].filter((k) => counts.get(k) !== N)
      expect({ broken, lost, partial, unexpected }).toEqual({
        broken: [],
        lost: [],
        partial: [],
        unexpected: [],
      })
      expect(acknowledged.size).toBeGreaterThan(CYCLES)
      expect(reads).toBeGreaterThan(0)
      const books = await sql.count('books')
      const events = await sql.get<{ n: number }>(
        "SELECT count(*) AS n FROM events WHERE type = 'book.created'",
      )
      expect(Number(events!.n)).toBe(books)
      console.info(
        `batch crash test: ${sent.size} batches, ${acknowledged.size} acknowledged, ${books / N} stored, ${CYCLES} kills, ${reads} reads of a batch in flight`,
      )
    } finally {
      await sql.close()
    }
  }, 120_000)
})
