/**
 * A small library schema (authors, books, chapters nested under books) and the records the
 * planner's tests make in a database of it.
 */
import type { FieldDeclaration } from '../../shared/resources/fields.ts'
import type { ResourceDeclaration, SchemaDeclaration } from '../../shared/schema/declaration.ts'
import { LIBRARY as CONTRACT_LIBRARY } from '../support/library.ts'

/** The contract's library (test/support/library.ts), with an email and a list field besides. */
export const LIBRARY: SchemaDeclaration = (() => {
  const declaration = structuredClone(CONTRACT_LIBRARY)
  const { authors, books } = declaration.resources
  authors!.fields.contact = { type: 'text', format: 'email', nullable: true }
  books!.fields.tags = { type: 'list', maxItems: 10, maxLength: 30, nullable: true }
  return declaration
})()

export const ORG = 'org_library'
const at = '2026-01-02T03:04:05.000Z'
export const id = (prefix: string, n: number) => `${prefix}_01jd3v0m7qf8s9t2w4x6y8z0a${n}`

/** The records made in a database of LIBRARY, by table: column -> value (booleans and lists as stored). */
export const RECORDS: Record<string, Record<string, unknown>[]> = {
  authors: [
    { id: id('aut', 1), name: 'Frank Herbert', country: 'US', contact: 'Frank@Example.com' },
    { id: id('aut', 2), name: 'Ursula Le Guin', country: null, contact: null },
  ],
  books: [
    {
      id: id('bok', 1),
      title: 'Dune',
      isbn: '978-0441013593',
      author_id: id('aut', 1),
      pages: 412,
      status: 'available',
      tags: '["desert"]',
    },
    {
      id: id('bok', 2),
      title: 'The Dispossessed',
      isbn: '978-0061054884',
      author_id: id('aut', 2),
      pages: 387,
      status: 'lent',
      tags: null,
    },
    {
      id: id('bok', 3),
      title: 'Earthsea Wizard',
      isbn: '978-0547773742',
      author_id: id('aut', 2),
      pages: 183,
      status: 'lost',
      tags: '[]',
    },
  ],
  chapters: [
    { id: id('chp', 1), book_id: id('bok', 1), title: 'Arrakis', number: 1 },
    { id: id('chp', 2), book_id: id('bok', 1), title: 'Muad Dib', number: 2 },
  ],
}

/** The organization and RECORDS, as INSERT statements with their values. */
export function recordStatements(): [string, unknown[]][] {
  const out: [string, unknown[]][] = [
    ['INSERT INTO orgs (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)', [ORG, 'Library', at, at]],
  ]
  for (const [table, rows] of Object.entries(RECORDS))
    for (const row of rows) {
      const columns = [...Object.keys(row), 'org_id', 'created_at', 'updated_at']
      out.push([
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
        [...Object.values(row), ORG, at, at],
      ])
    }
  // The first book's history, which follows the collection through a rename.
  out.push([
    'INSERT INTO events (id, org_id, type, resource, resource_id, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    [id('evt', 1), ORG, 'book.created', 'books', id('bok', 1), '{}', at, at],
  ])
  return out
}

/** LIBRARY changed by `change` (a deep copy: LIBRARY itself never changes). */
export function library(
  change: (resources: Record<string, ResourceDeclaration>) => void = () => {},
): SchemaDeclaration {
  const copy = structuredClone(LIBRARY) as SchemaDeclaration
  change(copy.resources)
  return copy
}

/** One book field changed by `change`. */
export const bookField = (field: string, change: (f: FieldDeclaration) => FieldDeclaration | undefined) =>
  library((r) => {
    const next = change(r.books!.fields[field]!)
    if (next) r.books!.fields[field] = next
    else delete r.books!.fields[field]
  })
