import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { existsSync, statSync } from 'node:fs'
import { removeServerDir, type ServerProcess, startServerProcess } from './server-process.ts'

let server: ServerProcess
afterAll(async () => {
  await server.stop()
  removeServerDir(server)
})

describe('SIGTERM during load', () => {
  it('stops accepting, finishes what is in flight, checkpoints, exits 0, and loses no acknowledged write', async () => {
    server = await startServerProcess(['--rate-limit', '0'])
    const client = await server.client()
    const token = await server.token(client)
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }
    const user = (await (
      await fetch(`${server.url}/api/v1/users`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Load', email: 'load@example.com' }),
      })
    ).json()) as { id: string }

    const acknowledged: string[] = []
    let failures = 0
    let stopping = false
    const worker = async () => {
      // Bounded: at most 2,000 requests per worker, and only until the server is gone.
      for (let i = 0; i < 2000; i++) {
        try {
          const response = await fetch(`${server.url}/api/v1/orders`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ userId: user.id, amount: i, currency: 'EUR' }),
          })
          if (response.status === 201) acknowledged.push(((await response.json()) as { id: string }).id)
          else if (!stopping) throw new Error(`unexpected ${response.status}`)
          else failures += 1
        } catch (error) {
          if (!stopping) throw error
          return
        }
      }
    }
    const workers = Array.from({ length: 8 }, worker)
    while (acknowledged.length < 150) await Bun.sleep(5)
    stopping = true
    server.proc.kill('SIGTERM')
    const status = await server.proc.exited
    await Promise.all(workers)
    expect(status).toBe(0)
    expect(acknowledged.length).toBeGreaterThanOrEqual(150)
    // No 500s from a database closed under a request: a refused connection is the only failure.
    expect(server.output()).not.toContain('"level":"error"')
    expect(failures).toBe(0)

    // The write-ahead log was checkpointed into the database file and removed.
    expect(existsSync(`${server.db}-wal`) ? statSync(`${server.db}-wal`).size : 0).toBe(0)
    const db = new Database(server.db, { readonly: true })
    try {
      const stored = new Set((db.query('SELECT id FROM orders').all() as { id: string }[]).map((r) => r.id))
      const lost = acknowledged.filter((id) => !stored.has(id))
      expect(lost).toEqual([])
      expect((db.query('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check).toBe(
        'ok',
      )
    } finally {
      db.close()
    }
    const after = await fetch(`${server.url}/healthz`).catch(() => 'refused')
    expect(after).toBe('refused')
  }, 60_000)
})
