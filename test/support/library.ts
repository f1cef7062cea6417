import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import library from '../schema/files/library.json' with { type: 'json' }

/**
 * The contract's library ("Your own resources (a schema file)"): authors, books that reference
 * them with an enum status and the action lend, chapters nested under books. A schema other than
 * the built-in example, for tests that every surface follows the declaration. It is the file
 * the admin-command tests serve with `--schema` (test/schema/files/library.json), which passes the
 * schema file check there (test/schema/library-served.test.ts).
 */
export const LIBRARY = library as SchemaDeclaration

/** The library's schema, built anew for a test file. */
export const librarySchema = (): Schema => schemaFromDeclaration(LIBRARY)
