import { describe, expect, it } from 'bun:test'
import { Glob } from 'bun'
import ts from 'typescript'
import shop from '../../shared/example/shop.schema.json' with { type: 'json' }

/**
 * The server serves the schema in force, whatever it declares (docs/architecture.md, "The schema
 * object"): no string in server/ names a collection of the built-in example (a shop), so what
 * reaches a user (OpenAPI, GraphQL descriptions, error hints, pages) is made from the schema and
 * a server of a library speaks of books. Only the example's demo data may name it. Comments may
 * illustrate with it; string literals (and templates' text) may not.
 */

const ROOT = `${import.meta.dir}/../..`
const ALLOWED = new Set(['server/admin/seed.ts'])

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)
const snake = (name: string) => name.replace(/[A-Z-]/g, (c) => (c === '-' ? '_' : `_${c.toLowerCase()}`))
const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())

/** Every spelling of the example's collections: name, singular, GraphQL, table and event names. */
const SPELLINGS = [
  ...new Set(
    Object.entries(shop.resources).flatMap(([name, { singular }]) => [
      name,
      camel(name),
      snake(name),
      singular,
      pascal(singular),
      snake(singular),
    ]),
  ),
]
/** Ids of the example's collections: `ord_…`. */
const PREFIXES = Object.values(shop.resources).map((r) => `${r.prefix}_`)

/**
 * Spellings that are also English words ("a loopback address", a form's method="post", "in the
 * order asked"): they name a collection only where code would, as in `order.created`,
 * `read:posts`, `$.orders`, `FROM orders`, `order(id:)` or `postId`.
 */
const ENGLISH = new Set([
  'address',
  'addresses',
  'Address',
  'post',
  'posts',
  'Post',
  'order',
  'Order',
  'comment',
])
const word = (spelling: string) => `(?<![\\w-])${spelling}(?![\\w-])`
const codeLike = (spelling: string) =>
  `(?<=[\`'"/:$.{]|FROM |from )(?<!method=")${spelling}(?![\\w-])|(?<![\\w-])${spelling}(?=[\`(/[]|Id\\b|\\.[a-z])`
const NAMING = new RegExp(
  [
    ...SPELLINGS.map((s) => (ENGLISH.has(s) ? codeLike(s) : word(s))),
    ...PREFIXES.map((p) => `(?<![\\w-])${p}`),
  ].join('|'),
)

async function serverFiles(): Promise<string[]> {
  const files: string[] = []
  for await (const path of new Glob('server/**/*.{ts,tsx}').scan(ROOT))
    if (!ALLOWED.has(path)) files.push(path)
  return files.sort()
}

/** The text of every string literal and template part of a file, with its line; module paths left out. */
function literalsOf(path: string, text: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
  const found: { line: number; text: string }[] = []
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    )
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.text })
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

async function naming(paths: string[], read: (path: string) => Promise<string>): Promise<string[]> {
  const offending: string[] = []
  for (const path of paths)
    for (const literal of literalsOf(path, await read(path))) {
      const match = NAMING.exec(literal.text)
      if (match)
        offending.push(`${path}:${literal.line}: ${match[0]} in ${JSON.stringify(literal.text.slice(0, 80))}`)
    }
  return offending
}

describe('a server free of the built-in example', () => {
  it('checks every file of server/ but the demo data', async () => {
    const files = await serverFiles()
    expect(files).toContain('server/openapi/search-paths.ts')
    expect(files).not.toContain('server/admin/seed.ts')
    expect(files.length).toBeGreaterThan(100)
  })

  it('finds the example named in strings where code names a collection, and not in English', async () => {
    const cases: [string, boolean][] = [
      ["const q = `SELECT * FROM orders WHERE status = 'paid'`", true],
      ["const hint = '$.orders[?@.status]'", true],
      ["const d = 'read:orders for order events'", true],
      ["const d = 'events such as `order.created`'", true],
      ["const d = 'the line-items of an order'", true],
      ["const d = 'a LineItem'", true],
      ["const id = 'ord_01jd3v0m7qf8s9t2w4x6y8z0ab'", true],
      ["const w = 'http to a loopback address only'", false],
      ["const w = 'The request has no return address.'", false],
      ['const f = `<form method="post" action="/device">`', false],
      ["const m = ['get', 'post']", false],
      ["import { x } from './addresses.ts'", false],
      ['// comments may say orders', false],
    ]
    for (const [text, named] of cases)
      expect([text, (await naming(['case.ts'], async () => text)).length > 0]).toEqual([text, named])
  })

  it('names no collection of the example in a string of server/', async () => {
    const files = await serverFiles()
    expect(await naming(files, (path) => Bun.file(`${ROOT}/${path}`).text())).toEqual([])
  })
})

describe('a CLI free of the built-in example', () => {
  // It learns the collections from the server (docs/cli.md, "How api learns the server"); its
  // help examples are made from what it learned.
  it('names no collection of the example in a string of cli/', async () => {
    const files: string[] = []
    for await (const path of new Glob('cli/**/*.ts').scan(ROOT)) files.push(path)
    expect(files.length).toBeGreaterThan(30)
    expect(await naming(files.sort(), (path) => Bun.file(`${ROOT}/${path}`).text())).toEqual([])
  })
})
