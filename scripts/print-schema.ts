/**
 * Prints the GraphQL schema (SDL) generated from the resource declarations.
 *
 *   bun scripts/print-schema.ts                         # the SDL on stdout
 *   bun scripts/print-schema.ts --write docs/graphql.md # puts it between the doc's schema markers
 *
 * test/graphql/schema.test.ts fails when docs/graphql.md no longer shows the generated schema.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { printServiceSchema } from '../server/graphql/schema.ts'
import { exampleSchema } from '../shared/resources/index.ts'

export const SCHEMA_START = '<!-- schema:start -->'
export const SCHEMA_END = '<!-- schema:end -->'

/** The doc with its schema block replaced by `sdl`. */
export function withSchema(doc: string, sdl: string): string {
  const start = doc.indexOf(SCHEMA_START)
  const end = doc.indexOf(SCHEMA_END)
  if (start < 0 || end < start) throw new Error(`the document has no ${SCHEMA_START} ... ${SCHEMA_END} block`)
  return `${doc.slice(0, start + SCHEMA_START.length)}\n\n\`\`\`graphql\n${sdl}\n\`\`\`\n\n${doc.slice(end)}`
}

if (import.meta.main) {
  const sdl = printServiceSchema(exampleSchema())
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
