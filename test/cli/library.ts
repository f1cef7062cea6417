/**
 * A server of another schema than the built-in example: the contract's library (authors, books
 * with an action `lend`, chapters nested under books), for the tests that show the CLI learning
 * whatever the server serves.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../server/ops/logger.ts'
import { schemaFor } from '../../server/schema/ddl.ts'
import { serve } from '../../server/serve.ts'
import { migrateDatabase, openDatabase } from '../../server/store/sqlite/db.ts'
import { sqliteStore } from '../../server/store/sqlite/store.ts'
import { exampleSchema } from '../../shared/resources/index.ts'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { startTestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'

/** The library of the contract's section "Your own resources (a schema file)". */
const LIBRARY: SchemaDeclaration = {
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
        inPrint: { type: 'boolean', default: true },
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

export interface LibraryServer {
  url: string
  /** A bearer token of a client of a fresh organization, with every scope. */
  token: string
  schema: Schema
  stop: () => Promise<void>
}

/** Starts the test server with the library, and gives a token of a client of a new organization. */
export async function startLibraryServer(): Promise<LibraryServer> {
  const schema = schemaFromDeclaration(LIBRARY)
  try {
    const server = await startTestServer({ schema })
    const tenant = await server.tenant()
    return { url: server.url, token: tenant.token, schema, stop: server.stop }
  } catch (error) {
    if (!/lacks column/.test(String(error))) throw error
    return startOverPreparedFile(schema)
  }
}

/**
 * Until the server makes a declared schema's tables at start (the schema-file issue, step 2), the
 * database is prepared before it starts: the service's migrations, then the library's tables as
 * server/schema/ddl.ts generates them. SQLite only.
 */
async function startOverPreparedFile(schema: Schema): Promise<LibraryServer> {
  const dir = mkdtempSync(join(tmpdir(), 'api-library-'))
  const location = join(dir, 'api.db')
  const db = openDatabase(location)
  migrateDatabase(db, exampleSchema())
  for (const resource of schema.resources.filter((r) => !r.service))
    for (const statement of schemaFor(resource, 'sqlite', schema)) db.run(statement)
  const running = await serve({
    host: '127.0.0.1',
    port: 0,
    db: location,
    schema,
    rateLimit: 1_000_000,
    logger: createLogger('error', (line) => console.error(line)),
  })
  const store = sqliteStore(db, schema)
  const org = await store.orgs.create('Library')
  const { client, secret } = await store.clients.create({ name: 'library', orgId: org.id, public: false })
  const token = await clientToken(running.url, { id: client.id, secret: secret! })
  return {
    url: running.url,
    token,
    schema,
    stop: async () => {
      db.close()
      await running.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
