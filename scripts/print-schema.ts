/**
 * Prints the GraphQL schema (SDL) generated from the resource declarations: the built-in
 * example's, or a schema file's read as `api-server --schema` reads it.
 *
 *   bun scripts/print-schema.ts                         # the SDL on stdout
 *   bun scripts/print-schema.ts --write docs/graphql.md # puts it between the doc's schema markers
 *   bun scripts/print-schema.ts --schema library.json   # the SDL of a schema file of one's own
 *
 * A schema file with problems prints each on standard error and exits 2, as `api-server` does.
 * test/graphql/schema.test.ts fails when docs/graphql.md no longer shows the generated schema.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { checkedDeclaration, SchemaFileError } from '../server/admin/schema-commands.ts'
import { printServiceSchema } from '../server/graphql/schema.ts'
import { exampleSchema } from '../shared/resources/index.ts'
import { schemaFromDeclaration } from '../shared/schema/declaration.ts'
import type { Schema } from '../shared/schema/schema.ts'

export const SCHEMA_START = '<!-- schema:start -->'
export const SCHEMA_END = '<!-- schema:end -->'

/** The doc with its schema block replaced by `sdl`. */
export function withSchema(doc: string, sdl: string): string {
  const start = doc.indexOf(SCHEMA_START)
  const end = doc.indexOf(SCHEMA_END)
  if (start < 0 || end < start) throw new Error(`the document has no ${SCHEMA_START} ... ${SCHEMA_END} block`)
  return `${doc.slice(0, start + SCHEMA_START.length)}\n\n\`\`\`graphql\n${sdl}\n\`\`\`\n\n${doc.slice(end)}`
}

/** The schema `--schema FILE` names, or the built-in example; exits 2 listing a bad file's problems. */
function chosenSchema(argv: string[]): Schema {
  const at = argv.indexOf('--schema')
  if (at < 0) return exampleSchema()
  const file = argv[at + 1]
  if (!file) {
    console.error('print-schema: --schema needs a file')
    process.exit(2)
  }
  try {
    return schemaFromDeclaration(checkedDeclaration(file))
  } catch (error) {
    if (!(error instanceof SchemaFileError)) throw error
    for (const problem of error.problems) console.error(`${error.file}: ${problem}`)
    process.exit(2)
  }
}

if (import.meta.main) {
  const sdl = printServiceSchema(chosenSchema(process.argv))
  const at = process.argv.indexOf('--write')
  if (at < 0) {
    console.log(sdl)
  } else {
    const file = process.argv[at + 1]
    if (!file) throw new Error('--write needs a file')
    writeFileSync(file, withSchema(readFileSync(file, 'utf8'), sdl))
    console.log(`wrote the schema into ${file}`)
  }
}
