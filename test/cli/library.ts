/**
 * A server of another schema than the built-in example: the contract's library
 * (test/support/library.ts), its books with a boolean besides, for the tests that show the CLI
 * learning whatever the server serves.
 */
import { declarationOf, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer } from '../support/server.ts'

export interface LibraryServer {
  url: string
  /** A bearer token of a client of a fresh organization, with every scope. */
  token: string
  stop: () => Promise<void>
}

/** Starts the test server with the library, and gives a token of a client of a new organization. */
export async function startLibraryServer(): Promise<LibraryServer> {
  const declaration = declarationOf(librarySchema())
  declaration.resources.books!.fields.inPrint = { type: 'boolean', default: true }
  const server = await startTestServer({ schema: schemaFromDeclaration(declaration) })
  const tenant = await server.tenant()
  return { url: server.url, token: tenant.token, stop: server.stop }
}
