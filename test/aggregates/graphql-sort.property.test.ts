import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { GraphQLError } from 'graphql'
import { checkGroupBy, parseAggregateSort } from '../../server/graphql/aggregate-args.ts'
import type { GroupKey } from '../../shared/query/aggregate-types.ts'
import { librarySchema } from '../support/library.ts'

/**
 * The `sort` and `groupBy` arguments of `{plural}Aggregate` (server/graphql/aggregate-args.ts), fed
 * anything a client could send: each either parses into keys that name a group key or an
 * aggregate the collection allows, or is BAD_USER_INPUT with a detail naming the argument.
 * PROPERTY_SEED replays a run.
 */

const seed = Number(process.env.PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31))
const books = librarySchema().byName('books')!

const KEYS: GroupKey[] = [
  { field: 'status' },
  { field: 'authorId' },
  { field: 'pages' },
  { field: 'createdAt', bucket: 'day' },
  { field: 'createdAt', bucket: 'month' },
]
const groupBy = fc.subarray(KEYS, { maxLength: 4 })

const word = fc.constantFrom(
  'count',
  'sum(pages)',
  'avg(pages)',
  'min(title)',
  'max(createdAt)',
  'sum(title)',
  'min(nope)',
  'count(pages)',
  'status',
  'authorId',
  'pages',
  'createdAt_day',
  'createdAt_month',
  'createdAt',
  'sum()',
  'max(constructor)',
  '__proto__',
  '',
)
const part = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .tuple(fc.constantFrom('', '-', '+', ' -'), word, fc.constantFrom('', ':asc', ':desc', ':DESC', ':up'))
      .map(([s, w, d]) => `${s}${w}${d}`),
  },
  fc.string({ maxLength: 12 }),
)
const sort = fc.oneof(
  fc.array(part, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(',')),
  fc.string({ maxLength: 500 }),
)

function expectBadInput(error: unknown, argument: string): void {
  expect(error).toBeInstanceOf(GraphQLError)
  const extensions = (error as GraphQLError).extensions
  expect(extensions.code).toBe('BAD_USER_INPUT')
  expect(extensions.details).toEqual([{ field: argument, message: expect.any(String) }])
}

describe('the aggregate arguments of GraphQL', () => {
  it('sort either names group keys and allowed aggregates, or is BAD_USER_INPUT naming sort', () => {
    fc.assert(
      fc.property(groupBy, sort, (keys, raw) => {
        let parsed: ReturnType<typeof parseAggregateSort>
        try {
          parsed = parseAggregateSort(books, keys, raw)
        } catch (error) {
          expectBadInput(error, 'sort')
          return
        }
        expect(parsed.length).toBeGreaterThan(0)
        expect(parsed.length).toBeLessThanOrEqual(4)
        for (const key of parsed) {
          if (key.kind === 'group') expect(keys[key.index]).toBeDefined()
          else if (key.aggregate.fn === 'count') expect(key.aggregate.field).toBeUndefined()
          else if (key.aggregate.fn === 'sum' || key.aggregate.fn === 'avg')
            expect(key.aggregate.field).toBe('pages')
          else expect(books.sortable).toContain(String(key.aggregate.field))
        }
      }),
      { numRuns: 2000, seed },
    )
  })

  it('reads what it is given back: a written sort parses to the keys it was written from', () => {
    fc.assert(
      fc.property(groupBy, fc.array(fc.boolean(), { minLength: 2, maxLength: 2 }), (keys, directions) => {
        fc.pre(keys.length > 0)
        // A key by its groupBy name or by its field, a direction by sign or by suffix.
        const name =
          keys[0]!.bucket && directions[0] ? `${keys[0]!.field}_${keys[0]!.bucket}` : keys[0]!.field
        const raw = `${directions[0] ? '-' : ''}sum(pages),${name}${directions[1] ? ':desc' : ':asc'}`
        expect(parseAggregateSort(books, keys, raw)).toEqual([
          { kind: 'aggregate', aggregate: { fn: 'sum', field: 'pages' }, descending: directions[0]! },
          { kind: 'group', index: 0, descending: directions[1]! },
        ])
      }),
      { numRuns: 200, seed },
    )
  })

  it('groupBy either keeps each field once and at most 3 keys, or is BAD_USER_INPUT naming groupBy', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...KEYS), { maxLength: 6 }), (keys) => {
        try {
          const checked = checkGroupBy(keys)
          expect(checked).toEqual(keys)
          expect(new Set(keys.map((k) => k.field)).size).toBe(keys.length)
          expect(keys.length).toBeLessThanOrEqual(3)
        } catch (error) {
          expectBadInput(error, 'groupBy')
        }
      }),
      { numRuns: 500, seed },
    )
  })
})
