import { describe, expect, it } from 'bun:test'
import { Glob } from 'bun'

/**
 * The resources served are a Schema built once at start and handed down (docs/architecture.md,
 * "The schema object"): no module keeps a resource list of its own, so one process can serve two
 * schemas. These checks fail on an import of a module-level list and on the built-in example being
 * built anywhere but at an entry point.
 */

const ROOT = `${import.meta.dir}/../..`
/** The names the module-level resource list and its helpers had (shared/resources/index.ts). */
const MODULE_LEVEL = ['RESOURCES', 'ALL_SCOPES', 'resourceByName', 'childrenOf']
/** Where the built-in example may be built: the entry points of the server and the CLI. */
const ENTRY_POINTS = new Set(['server/main.ts', 'server/serve.ts', 'cli/main.ts'])

async function sourceFiles(): Promise<string[]> {
  const files: string[] = []
  for (const dir of ['server', 'shared', 'cli'])
    for await (const path of new Glob(`${dir}/**/*.ts`).scan(ROOT)) files.push(path)
  return files.sort()
}

/** The names a file imports from shared/resources/index.ts. */
function resourceImportsOf(text: string): string[] {
  return [
    ...text.matchAll(
      /import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+['"][./]*(?:shared\/)?resources\/index\.ts['"]/g,
    ),
  ]
    .flatMap((m) => m[1]!.split(','))
    .map((name) => name.replace(/^\s*type\s+/, '').trim())
    .filter(Boolean)
}

describe('the schema handed down', () => {
  it('finds the code it checks', async () => {
    const files = await sourceFiles()
    expect(files).toContain('server/rest/routes.ts')
    expect(files).toContain('cli/commands/list.ts')
    expect(files.length).toBeGreaterThan(200)
  })

  it('leaves shared/resources without a module-level resource list or scope list', async () => {
    const text = await Bun.file(`${ROOT}/shared/resources/index.ts`).text()
    expect(text.match(/^export (const|let|var) \w+/gm) ?? []).toEqual([])
    for (const name of MODULE_LEVEL)
      expect(text).not.toMatch(new RegExp(`export (function|const) ${name}\\b`))
  })

  it('has no file in server/, shared/ or cli/ import a module-level resource list', async () => {
    const offending: string[] = []
    for (const path of await sourceFiles()) {
      const text = await Bun.file(`${ROOT}/${path}`).text()
      for (const name of resourceImportsOf(text))
        if (MODULE_LEVEL.includes(name)) offending.push(`${path}: ${name}`)
    }
    expect(offending).toEqual([])
  })

  it('builds the built-in example only at the entry points, inside a function', async () => {
    const offending: string[] = []
    for (const path of await sourceFiles()) {
      if (path === 'shared/resources/index.ts') continue
      const text = await Bun.file(`${ROOT}/${path}`).text()
      for (const [i, line] of text.split('\n').entries()) {
        if (!/\bexampleSchema\(/.test(line) || /^\s*(\*|\/\/)/.test(line)) continue
        // At the top level a module would hold the example for every server in the process.
        if (!ENTRY_POINTS.has(path) || /^\S/.test(line)) offending.push(`${path}:${i + 1}: ${line.trim()}`)
      }
    }
    expect(offending).toEqual([])
  })
})
