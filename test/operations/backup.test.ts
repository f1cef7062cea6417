import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, it } from 'bun:test'
import { join } from 'node:path'
import { serve } from '../../server/serve.ts'
import { runOk } from '../admin/run.ts'
import { clientToken } from '../support/tokens.ts'
import { removeServerDir, type ServerProcess, startServerProcess } from './server-process.ts'

let server: ServerProcess
afterAll(async () => {
  await server.stop()
  removeServerDir(server)
})

describe('api-server backup FILE while serving', () => {
  it('writes a consistent copy holding every write acknowledged before it started, and search works on it', async () => {
    server = await startServerProcess(['--rate-limit', '0', '--log-level', 'warn'])
    const client = await server.client()
    const token = await server.token(client)
    const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }
    const acknowledged: string[] = []
    let stop = false
    let n = 0
    const writer = async () => {
      while (!stop && n < 5000) {
        n += 1
        const response = await fetch(`${server.url}/api/v1/products`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `Kettle z${n}q`, sku: `SKU-${n}`, price: n, currency: 'EUR' }),
        })
        expect(response.status).toBe(201)
        acknowledged.push(((await response.json()) as { id: string }).id)
      }
    }
    const writers = Array.from({ length: 4 }, writer)
    while (acknowledged.length < 100) await Bun.sleep(5)
    const before = [...acknowledged]
    const file = join(server.dir, 'copy.db')
    await runOk(['backup', file], server.db)
    const during = acknowledged.length - before.length
    stop = true
    await Promise.all(writers)
    // Writes went on while the copy was made.
    expect(during).toBeGreaterThan(0)

    const copy = new Database(file, { readonly: true })
    let names: Map<string, string>
    try {
      expect(
        (copy.query('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check,
      ).toBe('ok')
      const rows = copy.query('SELECT id, name FROM products').all() as { id: string; name: string }[]
      names = new Map(rows.map((r) => [r.id, r.name]))
    } finally {
      copy.close()
    }
    expect(before.filter((id) => !names.has(id))).toEqual([])

    // Restoring is serving the copy: its full-text index finds the records it holds.
    const restored = await serve({ host: '127.0.0.1', port: 0, db: file, logLevel: 'silent' })
    try {
      const restoredToken = await clientToken(restored.url, {
        id: client.clientId,
        secret: client.clientSecret,
      })
      const search = async (q: string) => {
        const answer = await fetch(`${restored.url}/api/v2/search?q=${q}&limit=100`, {
          headers: { Authorization: `Bearer ${restoredToken}` },
        })
        expect(answer.status).toBe(200)
        return ((await answer.json()) as { data: { record: { id: string; name: string } }[] }).data
      }
      // Each name has a word of its own: its search finds exactly that record (an index pointing at
      // renumbered rowids would find another one, or none).
      for (const id of before.filter((_, i) => i % 10 === 0)) {
        const word = names.get(id)!.split(' ')[1]!
        expect((await search(word)).map((h) => h.record.id)).toEqual([id])
      }
      expect((await search('kettle')).length).toBe(100)
    } finally {
      await restored.stop()
    }
  }, 60_000)
})
