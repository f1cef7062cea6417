/**
 * Compiles the self-contained executables into dist/: `api-server` (service and admin commands)
 * and, once the command-line client exists, `api`. Each runs alone, with no node_modules.
 */
import { existsSync } from 'node:fs'

const targets = [
  { entry: 'server/main.ts', outfile: 'dist/api-server' },
  { entry: 'cli/main.ts', outfile: 'dist/api' },
].filter((t) => existsSync(t.entry))

for (const { entry, outfile } of targets) {
  const result = await Bun.build({
    entrypoints: [entry],
    compile: { outfile },
  })
  if (!result.success) {
    for (const log of result.logs) console.error(log)
    process.exit(1)
  }
  console.log(`built ${outfile}`)
}
