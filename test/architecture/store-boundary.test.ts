import { describe, expect, it } from 'bun:test'
import { dirname, join } from 'node:path'
import { Glob } from 'bun'

/**
 * The store is the one door to the database (docs/architecture.md, "Store interface and SQL
 * dialects"): outside `server/store/` the code speaks entities, the internal query and
 * transactions. These checks fail on a backend module imported from outside, on a database driver
 * used outside, and on SQL written outside.
 */

const ROOT = `${import.meta.dir}/../..`
/**
 * What the rest of the server may import from `server/store/`: the interface, its types, the
 * opener, and what it throws while its database cannot be reached.
 */
const PUBLIC = new Set(['store.ts', 'types.ts', 'open.ts', 'change-stamp.ts', 'availability.ts'])
/** The client's SQL dialect for QUERY is parsed here; its messages name SQL keywords. */
const CLIENT_SQL = /^server\/query\/sql[\w-]*\.ts$/
const SQL_STATEMENT =
  /['"`][^'"`\n]*\b(SELECT\s+[\w*(]|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|PRAGMA\s|VACUUM\b|BEGIN\s+IMMEDIATE)/

/**
 * The storage derived from the declarations (docs/architecture.md, "Storage"): the tables and
 * indexes the store's migrations are to create, on the database's side of the door with the store.
 */
const STORAGE = 'server/schema/'

async function serverFilesOutsideStore(): Promise<string[]> {
  const files: string[] = []
  for await (const path of new Glob('server/**/*.ts').scan(ROOT)) {
    if (!path.startsWith('server/store/') && !path.startsWith(STORAGE)) files.push(path)
  }
  return files.sort()
}

/** Module specifiers a file imports or re-exports. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:import|export)\s[^'"`]*?from\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!)
}

/** The repository paths a file imports, for relative specifiers (`../http/etag.ts` -> `server/http/etag.ts`). */
function localImportsOf(path: string, text: string): string[] {
  return importsOf(text)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => join(dirname(path), specifier))
}

describe('the store boundary', () => {
  it('finds the server code it checks', async () => {
    const files = await serverFilesOutsideStore()
    expect(files).toContain('server/resources/writes.ts')
    expect(files).toContain('server/oauth/grants/refresh-token.ts')
    expect(files.length).toBeGreaterThan(80)
  })

  it('lets the rest of the server import only the store interface, its types and the opener', async () => {
    const offending: string[] = []
    for (const path of await serverFilesOutsideStore()) {
      const text = await Bun.file(`${ROOT}/${path}`).text()
      for (const specifier of importsOf(text)) {
        const store = specifier.match(/(?:^|\/)store\/(.+)$/)
        if (store && !PUBLIC.has(store[1]!)) offending.push(`${path} imports ${specifier}`)
        if (specifier === 'bun:sqlite' || specifier === 'bun-sqlite-migrations')
          offending.push(`${path} imports ${specifier}`)
      }
    }
    expect(offending).toEqual([])
  })

  it('keeps SQL inside server/store', async () => {
    const offending: string[] = []
    for (const path of await serverFilesOutsideStore()) {
      if (CLIENT_SQL.test(path)) continue
      const lines = (await Bun.file(`${ROOT}/${path}`).text()).split('\n')
      lines.forEach((line, i) => {
        if (SQL_STATEMENT.test(line)) offending.push(`${path}:${i + 1}: ${line.trim()}`)
      })
    }
    expect(offending).toEqual([])
  })

  it('recognises the SQL it forbids', () => {
    for (const line of [
      "db.query('SELECT * FROM orders WHERE id = ?')",
      'const sql = `INSERT INTO events (id) VALUES (?)`',
      "db.run('PRAGMA wal_checkpoint(TRUNCATE)')",
      '"UPDATE orders SET status = ?"',
      "run('DELETE FROM grants')",
    ])
      expect(SQL_STATEMENT.test(line)).toBe(true)
    for (const line of ["'Select a collection'", '// SELECT is parsed elsewhere', "'Updated at'"])
      expect(SQL_STATEMENT.test(line)).toBe(false)
  })
})

describe('the engine', () => {
  it('imports nothing from server/http/: the edge calls the engine, never the other way round', async () => {
    const offending: string[] = []
    for (const path of await serverFilesOutsideStore()) {
      if (!path.startsWith('server/resources/')) continue
      const text = await Bun.file(`${ROOT}/${path}`).text()
      for (const target of localImportsOf(path, text))
        if (target.startsWith('server/http/')) offending.push(`${path} imports ${target}`)
    }
    expect(offending).toEqual([])
  })

  it('has no circle of imports among its own files', async () => {
    const graph = new Map<string, string[]>()
    for (const path of await serverFilesOutsideStore()) {
      if (!path.startsWith('server/resources/')) continue
      const text = await Bun.file(`${ROOT}/${path}`).text()
      graph.set(
        path,
        localImportsOf(path, text).filter((target) => target.startsWith('server/resources/')),
      )
    }
    expect(circlesIn(graph)).toEqual([])
  })
})

/** Import paths that lead from a file back to itself, one per file that starts one, as `a -> b -> a`. */
function circlesIn(graph: Map<string, string[]>): string[] {
  const circles: string[] = []
  const done = new Set<string>()
  const walk = (path: string, trail: string[]) => {
    const start = trail.indexOf(path)
    if (start >= 0) {
      circles.push([...trail.slice(start), path].join(' -> '))
      return
    }
    if (done.has(path)) return
    for (const next of graph.get(path) ?? []) walk(next, [...trail, path])
    done.add(path)
  }
  for (const path of graph.keys()) walk(path, [])
  return circles
}
