import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** One migration file: its name (`0001_init.sql`), which orders it, and its text. */
interface SqlFile {
  name: string
  text: string
}

/**
 * Every `*.sql` file of `dir` (relative to this file), sorted by name. Imported as a Bun macro
 * (`with { type: 'macro' }`): it runs when the importing module is transpiled or bundled, so the
 * files' text is inlined into the code, and the compiled binary carries its migrations without a
 * list kept by hand. A file's version is its position in this list.
 */
export function sqlFilesIn(dir: string): SqlFile[] {
  const folder = join(import.meta.dir, dir)
  return readdirSync(folder)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(folder, name), 'utf8') }))
}
