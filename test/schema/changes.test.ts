import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { planChanges } from '../../server/schema/changes.ts'
import type { DialectName } from '../../server/schema/ddl-dialects.ts'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../support/postgres.ts'
import { CASES } from './change-cases.ts'
import { expectRecordsKept, expectSearchFinds } from './change-checks.ts'
import { expectSameStructure, postgresFor, sqliteFor, type TestDatabase } from './change-databases.ts'
import { bookField, id, LIBRARY, library, ORG, recordStatements } from './change-library.ts'

/**
 * The planner of schema changes (server/schema/changes.ts) on a small library schema: each kind of
 * change classified and described, and, applied to a database holding records, leaving exactly the
 * structure a fresh database of the next schema has, with every kept record, its search and its
 * constraints; on SQLite and on PostgreSQL.
 */

const plan = (previous: SchemaDeclaration | null, next: SchemaDeclaration, dialect: DialectName) =>
  planChanges(previous, schemaFromDeclaration(next), dialect)

/** What only SQLite plans: its rebuilds, and its FTS table made again when a searched column is renamed. */
const SQLITE_ONLY = /^(rebuild table |make the search of )/

describe('planChanges: what each change is', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const shown = (dialect: DialectName) =>
      plan(LIBRARY, c.next, dialect).map((change) => [change.description, change.destructive])
    expect(shown('sqlite')).toEqual(c.plan)
    // PostgreSQL's ALTER TABLE does what SQLite needs a rebuild for, and its search column follows a rename.
    expect(shown('postgres')).toEqual(c.plan.filter(([description]) => !SQLITE_ONLY.test(description)))
  })

  it('plans nothing for the same schema, nor for a renamedFrom that is already done', () => {
    const done = bookField('name', () => undefined)
    done.resources.books!.renamedFrom = 'novels'
    expect(plan(LIBRARY, LIBRARY, 'sqlite')).toEqual([])
    expect(plan(LIBRARY, done, 'postgres')).toEqual([])
  })

  it('makes every collection of a database with none yet, in dependency order', () => {
    const changes = plan(null, LIBRARY, 'postgres')
    expect(changes.map((c) => c.description)).toEqual([
      'add collection authors (name, country, contact)',
      'add collection books (title, isbn, authorId, pages, status, tags)',
      'add collection chapters (bookId, title, number)',
    ])
    expect(changes.some((c) => c.destructive)).toBe(false)
  })
})

if (!postgresAvailable())
  console.warn(
    'PostgreSQL is not installed here: the planner is tested on SQLite only (apt-get install postgresql)',
  )

for (const dialect of ['sqlite', 'postgres'] as const) {
  const describeOn = dialect === 'postgres' && !postgresAvailable() ? describe.skip : describe
  describeOn(`the planned changes applied on ${dialect}`, () => {
    let postgres: TestPostgres | undefined
    let made = 0
    const open: TestDatabase[] = []

    /** A database made for `declaration`, with LIBRARY's records when it is LIBRARY. */
    async function database(declaration: SchemaDeclaration, records = false): Promise<TestDatabase> {
      const db =
        dialect === 'sqlite'
          ? sqliteFor(declaration)
          : await postgresFor(new SQL(await postgres!.database(`changes_${++made}`), { max: 1 }), declaration)
      open.push(db)
      if (records) for (const [statement, values] of recordStatements()) await db.run(statement, values)
      return db
    }

    beforeAll(async () => {
      if (dialect === 'postgres') postgres = await startTestPostgres()
    })
    afterAll(async () => {
      for (const db of open) await db.close()
      await postgres?.stop()
    })

    const kept = CASES.filter((c) => !c.refusedWithRecords)
    it.each(kept.map((c) => [c.name, c] as const))(
      '%s: leaves the structure of a fresh database, every record and the search',
      async (_, c) => {
        const db = await database(LIBRARY, true)
        await db.apply(plan(LIBRARY, c.next, dialect))
        expectSameStructure(await db.structure(), await (await database(c.next)).structure())
        await expectRecordsKept(db, LIBRARY, c.next)
        expect(await expectSearchFinds(db, c.next)).toBeGreaterThan(0)
      },
    )

    it('after new fields with defaults, a record written as the previous schema writes it gets the defaults (a replica not yet restarted)', async () => {
      const c = CASES.find((c) => c.name.startsWith('new fields with defaults'))!
      const db = await database(LIBRARY, true)
      await db.apply(plan(LIBRARY, c.next, dialect))
      await db.run(
        'INSERT INTO books (id, org_id, title, isbn, author_id, pages, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [id('bok', 9), ORG, 'Solaris', '978-0156027601', id('aut', 1), 204, 'available', 'a', 'a'],
      )
      const [row] = await db.all('SELECT copies, signed, labels FROM books WHERE id = ?', [id('bok', 9)])
      expect([Number(row!.copies), Number(row!.signed), JSON.parse(String(row!.labels))]).toEqual([
        1,
        0,
        ['new'],
      ])
    })

    it('a database with no declared collection yet gets every one, as a fresh database has them', async () => {
      const db = await database({ resources: {} })
      await db.apply(plan(null, LIBRARY, dialect))
      expectSameStructure(await db.structure(), await (await database(LIBRARY)).structure())
    })

    it('removing a parent and its nested collection drops the nested one first', async () => {
      const db = await database(LIBRARY, true)
      const next = library((r) => {
        delete r.books
        delete r.chapters
      })
      await db.apply(plan(LIBRARY, next, dialect))
      expectSameStructure(await db.structure(), await (await database(next)).structure())
    })

    it('a renamed collection keeps its history and its children point at it', async () => {
      const c = CASES.find((c) => c.name.startsWith('a renamed collection'))!
      const db = await database(LIBRARY, true)
      await db.apply(plan(LIBRARY, c.next, dialect))
      expect(await db.all('SELECT resource, resource_id FROM events')).toEqual([
        { resource: 'volumes', resource_id: id('bok', 1) },
      ])
      // A chapter of a book that is not there is refused: the key follows the table.
      await expect(
        db.run(
          "INSERT INTO chapters (id, org_id, book_id, title, number, created_at, updated_at) VALUES ('chp_x', ?, 'bok_missing', 'x', 1, 'a', 'a')",
          [ORG],
        ),
      ).rejects.toThrow()
    })

    it('a new unique refuses a duplicate afterwards', async () => {
      const c = CASES.find((c) => c.name === 'a new unique')!
      const db = await database(LIBRARY, true)
      await db.apply(plan(LIBRARY, c.next, dialect))
      const insert = (n: number) =>
        db.run(
          'INSERT INTO chapters (id, org_id, book_id, title, number, created_at, updated_at) VALUES (?, ?, ?, ?, 3, ?, ?)',
          [id('chp', n), ORG, id('bok', 2), 'Arrakis', 'a', 'a'],
        )
      // Another book's chapter may not take a title the organization has.
      await expect(insert(7)).rejects.toThrow()
    })

    it('a new required field without default: made on an empty table, refused with records, nothing changed', async () => {
      const c = CASES.find((c) => c.name === 'a new required field without default')!
      const empty = await database(LIBRARY)
      await empty.apply(plan(LIBRARY, c.next, dialect))
      expectSameStructure(await empty.structure(), await (await database(c.next)).structure())

      const full = await database(LIBRARY, true)
      const before = await full.structure()
      await expect(full.apply(plan(LIBRARY, c.next, dialect))).rejects.toThrow()
      expect(await full.structure()).toEqual(before)
    })

    it('a field that stops being nullable fails over a null and passes once none is left', async () => {
      const c = CASES.find((c) => c.name === 'a field that stops being nullable')!
      const db = await database(LIBRARY, true)
      await expect(db.apply(plan(LIBRARY, c.next, dialect))).rejects.toThrow()
      await db.run("UPDATE authors SET country = 'US' WHERE country IS NULL")
      await db.apply(plan(LIBRARY, c.next, dialect))
      expectSameStructure(await db.structure(), await (await database(c.next)).structure())
    })

    it('a changed type converts what converts and fails the whole plan on what does not', async () => {
      const toInteger = bookField('isbn', (f) => ({ ...f, type: 'integer', max: undefined }))
      const db = await database(LIBRARY, true)
      await expect(db.apply(plan(LIBRARY, toInteger, dialect))).rejects.toThrow()
      await db.run("UPDATE books SET isbn = '9780441013593' WHERE isbn = '978-0441013593'")
      await db.run("UPDATE books SET isbn = '9780061054884' WHERE isbn = '978-0061054884'")
      await db.run("UPDATE books SET isbn = '9780547773742' WHERE isbn = '978-0547773742'")
      await db.apply(plan(LIBRARY, toInteger, dialect))
      expectSameStructure(await db.structure(), await (await database(toInteger)).structure())
      const [dune] = await db.all(`SELECT isbn FROM books WHERE id = '${id('bok', 1)}'`)
      expect(Number(dune!.isbn)).toBe(9780441013593)
    })

    // Each probe counts, on the database as it is before the plan, what its change would reject.
    it.each([
      [
        'a new unique over duplicated values (two titles taken twice)',
        library((r) => {
          r.chapters!.fields.title = { ...r.chapters!.fields.title!, unique: true }
        }),
        'make chapters.title unique',
        2,
      ],
      [
        'a narrower max over larger numbers (Dune has 412 pages)',
        bookField('pages', (f) => ({ ...f, max: 400 })),
        'narrow books.pages',
        1,
      ],
      [
        'a narrower max over longer texts',
        bookField('title', (f) => ({ ...f, max: 10 })),
        'narrow books.title',
        2,
      ],
      [
        'a narrower list over longer items',
        bookField('tags', (f) => ({ ...f, maxLength: 5 })),
        'narrow books.tags',
        1,
      ],
      [
        'a not-null over nulls',
        library((r) => {
          r.authors!.fields.country = { ...r.authors!.fields.country!, nullable: undefined }
        }),
        'make authors.country not nullable',
        1,
      ],
      [
        'a removed enum value that a record holds',
        bookField('status', (f) => ({ ...f, values: ['available', 'lent'] })),
        'remove values lost',
        1,
      ],
      [
        'a new required field without default over a table with rows',
        bookField('edition', () => ({ type: 'integer' })),
        'add field books.edition',
        3,
      ],
      [
        'a removed collection with records',
        library((r) => {
          delete r.chapters
        }),
        'remove collection chapters',
        4,
      ],
    ] as const)('the probe of %s counts them', async (_, next, change, n) => {
      const db = await database(LIBRARY, true)
      const extra = (k: number, book: number, title: string) =>
        db.run(
          'INSERT INTO chapters (id, org_id, book_id, title, number, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, ?)',
          [id('chp', k), ORG, id('bok', book), title, 'a', 'a'],
        )
      await extra(3, 2, 'Arrakis')
      await extra(4, 3, 'Muad Dib')
      const probed = plan(LIBRARY, next, dialect).find((c) => c.description.startsWith(change))!
      const [row] = await db.all(probed.probe!)
      expect(Number(row!.n)).toBe(n)
    })

    it('several plans in a row (A -> B -> C) leave what a fresh C has, with every record', async () => {
      const b = library((r) => {
        r.volumes = { ...r.books!, renamedFrom: 'books' }
        delete r.books
        r.chapters!.parent = { collection: 'volumes', field: 'bookId' }
        r.volumes.fields.subtitle = { type: 'text', nullable: true, search: true }
        delete r.volumes.fields.isbn
      })
      const c = structuredClone(b)
      const volumes = c.resources.volumes!
      const { title, ...rest } = volumes.fields
      volumes.fields = {
        name: { ...title!, renamedFrom: 'title' },
        ...rest,
        pages: { ...rest.pages!, nullable: true },
      }
      volumes.fields.subtitle = { ...volumes.fields.subtitle!, unique: true }
      c.resources.authors!.fields.country = { ...c.resources.authors!.fields.country!, max: 3 }

      const db = await database(LIBRARY, true)
      await db.apply(plan(LIBRARY, b, dialect))
      await db.apply(plan(b, c, dialect))
      expectSameStructure(await db.structure(), await (await database(c)).structure())
      const titles = await db.all('SELECT id, name FROM volumes ORDER BY id')
      expect(titles.map((t) => t.name)).toEqual(['Dune', 'The Dispossessed', 'Earthsea Wizard'])
      expect(await expectSearchFinds(db, c)).toBeGreaterThan(0)
    })
  })
}
