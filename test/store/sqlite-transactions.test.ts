import { afterEach, beforeEach, describe, expect, it } from 'bun:test'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openStore } from '../../server/store/open.ts'
import type { Store } from '../../server/store/store.ts'
import { exampleSchema } from '../../shared/resources/index.ts'

/**
 * SQLite's transactions behind the async store (server/store/sqlite/transactions.ts): while one is
 * open, other calls wait for it, so nobody sees or joins its uncommitted work.
 */
let store: Store
beforeEach(async () => {
  store = openStore(join(mkdtempSync(join(tmpdir(), 'api-tx-')), 'api.db'), exampleSchema())
  await store.migrate()
})
afterEach(() => store.close())

describe('a transaction on the SQLite store', () => {
  it('holds a read made while it awaits until it ends: the read never sees its rolled-back row', async () => {
    let inside!: () => void
    const started = new Promise<void>((resolve) => {
      inside = resolve
    })
    let release!: () => void
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const failing = store
      .transaction(async (tx) => {
        await tx.orgs.create('Uncommitted')
        inside()
        await held
        throw new Error('rolled back')
      })
      .catch((error: Error) => error.message)
    await started
    const read = store.orgs.find('Uncommitted')
    let settled = false
    void read.then(() => {
      settled = true
    })
    await Bun.sleep(20)
    expect(settled).toBe(false)
    release()
    expect(await failing).toBe('rolled back')
    expect(await read).toBeNull()
  })

  it('commits everything or nothing, and runs transactions one after the other', async () => {
    const order: string[] = []
    await Promise.all(
      ['A', 'B', 'C'].map((name) =>
        store.transaction(async (tx) => {
          order.push(`begin ${name}`)
          await tx.orgs.create(name)
          await Bun.sleep(5)
          order.push(`end ${name}`)
        }),
      ),
    )
    expect(order).toEqual(['begin A', 'end A', 'begin B', 'end B', 'begin C', 'end C'])
    expect((await store.orgs.find('B'))?.name).toBe('B')
  })

  it('undoes a failed nested transaction alone (a savepoint)', async () => {
    await store.transaction(async (tx) => {
      await tx.orgs.create('Outer')
      await tx
        .transaction(async (inner) => {
          await inner.orgs.create('Inner')
          throw new Error('inner fails')
        })
        .catch(() => {})
    })
    expect(await store.orgs.find('Outer')).not.toBeNull()
    expect(await store.orgs.find('Inner')).toBeNull()
  })

  it('rejects, never throws synchronously, when a statement fails', async () => {
    await store.orgs.create('Taken')
    const attempt = store.orgs.createUnique('Taken')
    expect(attempt).toBeInstanceOf(Promise)
    await expect(attempt).rejects.toThrow()
  })
})
