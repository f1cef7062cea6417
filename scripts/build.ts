/**
 * Compiles the self-contained executables: `api-server` (service and admin commands) and `api`
 * (the command-line client), into dist/ or the directory after `--outdir`. Each runs alone, with
 * no node_modules; package.json's version is compiled in (`--version`).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

import { bundleConsole } from '../server/console/assets.ts'

const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' } } })

// The console's files, bundled first and carried inside api-server: nothing is read from disk
// at run time (server/console/assets.ts reads them back from this definition).
const consoleBundle = JSON.stringify(await bundleConsole())

const targets = [
  { entry: 'server/main.ts', outfile: join(values.outdir, 'api-server') },
  { entry: 'cli/main.ts', outfile: join(values.outdir, 'api') },
].filter((t) => existsSync(t.entry))

for (const { entry, outfile } of targets) {
  const result = await Bun.build({
    entrypoints: [entry],
    compile: { outfile },
    // What loads on first use (GraphQL, the QUERY parsers, the OpenAPI documents, Swagger UI)
    // goes into chunks of its own inside the executable, parsed only when imported; in one
    // bundle its code would be parsed at every start (docs/performance.md, memory under "Where
    // each target stands, and why").
    splitting: true,
    define: { API_CONSOLE_BUNDLE: JSON.stringify(consoleBundle) },
  })
  if (!result.success) {
    for (const log of result.logs) console.error(log)
    process.exit(1)
  }
  console.log(`built ${outfile}`)
}
