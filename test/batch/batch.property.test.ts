import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { parseBatch } from '../../server/batch/body.ts'
import { parseTemplate, substitute } from '../../server/batch/references.ts'
import { ApiError } from '../../shared/errors.ts'
import { librarySchema } from '../support/library.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { footprint } from './support.ts'

/**
 * The batch body and its reference syntax, fuzzed (seeded: PROPERTY_SEED replays a run, and
 * fast-check prints the seed of a failure): the parsers answer any input with a value or the
 * contract's 422, and a real server answers random batches without a 500, writing nothing when
 * it refuses one.
 */

const seed = Number(process.env.PROPERTY_SEED ?? 20_261_127)
const TABLES = ['authors', 'books', 'chapters']

/**
 * Text written so that a batch keeps it as it is: each `${` after an odd number of backslashes
 * (twice those before it, and one); before a reference, the backslashes it ends with doubled.
 */
const escaped = (text: string, beforeReference = false) => {
  const out = text.replace(/(\\*)\$\{/g, (_, slashes: string) => `${'\\'.repeat(2 * slashes.length + 1)}\${`)
  return beforeReference ? out.replace(/(\\+)$/, '$1$1') : out
}
const refName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,10}$/)
const fieldName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/)

describe('the reference syntax', () => {
  it('keeps any text whose ${ are written $${, as it is', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), (text) => {
        expect(substitute(escaped(text), new Map(), 'x')).toBe(text)
      }),
      { seed, numRuns: 2000 },
    )
  })

  it('puts every reference’s value in its place: alone with its JSON type, inside text as text', () => {
    const scalar = fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean())
    const literal = fc.string({ maxLength: 12 }).map((text) => ({ text }))
    const reference = fc
      .tuple(refName, fieldName, scalar)
      .map(([ref, field, value]) => ({ ref, field, value }))
    fc.assert(
      fc.property(fc.array(fc.oneof(literal, reference), { minLength: 1, maxLength: 6 }), (parts) => {
        // Text beside text is one text: what a client writes between two references.
        const merged: ({ text: string } | { ref: string; field: string; value: unknown })[] = []
        for (const p of parts) {
          if ('text' in p && p.text === '' && parts.length > 1) continue
          const last = merged.at(-1)
          if ('text' in p && last && 'text' in last) last.text += p.text
          else merged.push({ ...p })
        }
        const results = new Map<string, Record<string, unknown>>()
        for (const p of merged)
          if ('ref' in p) results.set(p.ref, { ...results.get(p.ref), [p.field]: p.value })
        const template = merged
          .map((p, i) => ('text' in p ? escaped(p.text, i + 1 < merged.length) : `\${${p.ref}.${p.field}}`))
          .join('')
        const value = substitute(template, results, 'x')
        const only = merged[0]!
        if (merged.length === 1 && 'ref' in only) expect(value).toEqual(results.get(only.ref)![only.field])
        else {
          const text = merged
            .map((p) => ('text' in p ? p.text : String(results.get(p.ref)![p.field])))
            .join('')
          expect(value).toBe(text)
        }
      }),
      { seed, numRuns: 3000 },
    )
  })

  it('answers malformed text with a 422 naming the place, never another error', () => {
    const noisy = fc.stringMatching(/^[${}.a-z_\\ -]{0,30}$/)
    fc.assert(
      fc.property(noisy, (text) => {
        try {
          parseTemplate(text, 'operations[0].body.title')
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError)
          expect((error as ApiError).status).toBe(422)
          expect((error as ApiError).details.map((d) => d.field)).toEqual(['operations[0].body.title'])
        }
      }),
      { seed, numRuns: 3000 },
    )
  })
})

describe('parseBatch', () => {
  it('answers any JSON value with operations or a 422, each detail naming a place', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.record({ operations: fc.array(fc.jsonValue(), { maxLength: 5 }) })),
        (body) => {
          try {
            expect(parseBatch(body).length).toBeGreaterThan(0)
          } catch (error) {
            expect(error).toBeInstanceOf(ApiError)
            expect((error as ApiError).status).toBe(422)
            expect((error as ApiError).details.length).toBeGreaterThan(0)
          }
        },
      ),
      { seed, numRuns: 2000 },
    )
  })
})

describe('random batches against a real server', () => {
  let server: TestServer
  let tenant: Tenant
  let authorId: string
  let bookId: string

  beforeAll(async () => {
    server = await startTestServer({ schema: librarySchema() })
    tenant = await server.tenant()
    const post = async (path: string, json: unknown) =>
      ((await (await tenant.fetch(path, { method: 'POST', json })).json()) as { id: string }).id
    authorId = await post('/api/v2/authors', { name: 'Seed' })
    bookId = await post('/api/v2/books', { title: 'Seed', authorId, pages: 1, isbn: 'seed' })
  })
  afterAll(() => server?.stop())

  /** Random batches, made once the seed records exist (their ids are among the values). */
  function batches() {
    const id = () =>
      fc.constantFrom(authorId, bookId, '${a.id}', '${b.id}', '${a.nope}', '${z.id}', 'x', '\\${a.id}')
    const goodId = fc.constantFrom(authorId, bookId, '${a.id}', '${b.id}')
    const author = fc.record({
      name: fc.oneof({ arbitrary: fc.string({ minLength: 1, maxLength: 10 }), weight: 9 }, fc.constant('')),
    })
    const book = fc.record({
      title: fc.string({ minLength: 1, maxLength: 10 }),
      authorId: fc.constantFrom(authorId, '${a.id}'),
      pages: fc.integer({ min: 0, max: 60 }),
      isbn: fc.uuid().map((u) => u.slice(0, 17)),
    })
    /** Writes that mostly work, some on earlier results: so that batches pass as well as fail. */
    const likely = () =>
      fc.oneof(
        fc.record({ method: fc.constant('POST'), path: fc.constant('/api/v2/authors'), body: author }),
        fc.record({ method: fc.constant('POST'), path: fc.constant('/api/v2/books'), body: book }),
        fc.record({
          method: fc.constant('POST'),
          path: fc.oneof(goodId, id()).map((i) => `/api/v2/books/${i}/lend`),
        }),
        fc.record({
          method: fc.constantFrom('PATCH', 'PUT'),
          path: fc.constantFrom(authorId, '${a.id}').map((i) => `/api/v2/authors/${i}`),
          body: author,
        }),
        fc.record({
          method: fc.constant('DELETE'),
          path: fc.oneof(goodId, id()).map((i) => `/api/v2/authors/${i}`),
        }),
      )
    /** Anything a client could send as an operation. */
    const hostile = () =>
      fc.record(
        {
          method: fc.oneof(fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'post'), fc.jsonValue()),
          path: fc.oneof(
            fc.constantFrom(
              '/api/v2/authors',
              '/api/v2/books',
              '/api/v1/authors',
              '/api/v2/batch',
              '/api/v2/',
            ),
            id().map((i) => `/api/v2/books/${i}/chapters`),
            fc.string({ maxLength: 30 }),
          ),
          body: fc.oneof(
            fc.record({ title: fc.string({ maxLength: 10 }), number: fc.integer({ min: 0, max: 3 }) }),
            fc.jsonValue({ maxDepth: 2 }),
          ),
          ref: fc.constantFrom('a', 'b', '${a.id}', 'a.b', ''),
          ifMatch: fc.constantFrom('*', '"x"', ''),
        },
        { requiredKeys: ['method', 'path'] },
      )
    /** An author (ref a) and maybe a book (ref b) first, then writes that may name them. */
    const batchOf = fc
      .tuple(
        author,
        fc.option(book),
        fc.array(fc.oneof({ arbitrary: likely(), weight: 12 }, { arbitrary: hostile(), weight: 1 }), {
          maxLength: 5,
        }),
      )
      .map(([first, second, rest]) => [
        { method: 'POST', path: '/api/v2/authors', body: first, ref: 'a' },
        ...(second ? [{ method: 'POST', path: '/api/v2/books', body: second, ref: 'b' }] : []),
        ...rest,
      ])
    return batchOf
  }

  it('never answers 500, and writes nothing when it refuses a batch', async () => {
    await fc.assert(
      fc.asyncProperty(batches(), async (operations) => {
        const before = await footprint(server, tenant.orgId, TABLES)
        const response = await tenant.fetch('/api/v2/batch', { method: 'POST', json: { operations } })
        const body = (await response.json()) as { results?: unknown[]; error?: { details: unknown[] } }
        expect([200, 403, 404, 405, 409, 412, 422]).toContain(response.status)
        const after = await footprint(server, tenant.orgId, TABLES)
        if (response.status === 200) {
          expect(body.results).toHaveLength(operations.length)
          // Every write appends its event (a delete of a record with children, one each).
          expect(after[3]! - before[3]!).toBeGreaterThanOrEqual(operations.length)
        } else {
          expect(body.error!.details.length).toBeGreaterThan(0)
          expect(after).toEqual(before)
        }
      }),
      { seed, numRuns: 150 },
    )
  })
})
