import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'

/**
 * The contract's library ("Your own resources (a schema file)"): authors, books that reference
 * them with an enum status and the action lend, chapters nested under books. A schema other than
 * the built-in example, for tests that every surface follows the declaration.
 */
export const LIBRARY: SchemaDeclaration = {
  resources: {
    authors: {
      singular: 'author',
      prefix: 'aut',
      fields: {
        name: { type: 'text', max: 200, sort: true, search: true },
        country: { type: 'text', min: 2, max: 2, filter: 'eq', nullable: true },
      },
    },
    books: {
      singular: 'book',
      prefix: 'bok',
      fields: {
        title: { type: 'text', max: 300, sort: true, search: true },
        isbn: { type: 'text', max: 17, unique: true, filter: 'eq' },
        authorId: { type: 'reference', to: 'authors', filter: 'eq' },
        pages: { type: 'integer', min: 1, filter: 'eq+range', sort: true },
        status: { type: 'enum', values: ['available', 'lent', 'lost'], default: 'available', filter: 'eq' },
      },
      actions: {
        lend: {
          field: 'status',
          from: ['available'],
          to: 'lent',
          past: 'lent',
          summary: 'Lend an available book',
        },
      },
    },
    chapters: {
      singular: 'chapter',
      prefix: 'chp',
      parent: { collection: 'books', field: 'bookId' },
      fields: { title: { type: 'text', max: 300 }, number: { type: 'integer', min: 1, sort: true } },
    },
  },
}

/** The library's schema, built anew for a test file. */
export const librarySchema = (): Schema => schemaFromDeclaration(LIBRARY)
