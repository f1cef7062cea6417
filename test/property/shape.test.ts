import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { ApiError } from '../../shared/errors.ts'
import {
  baseFieldNames,
  expansionsOf,
  parseAcrossFields,
  parseShape,
  relationsOf,
  type Shape,
  type ShapeParams,
} from '../../shared/query/shape.ts'
import { exampleSchema } from '../../shared/resources/index.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

const allNames = [
  ...new Set([
    ...SCHEMA.resources.flatMap(baseFieldNames),
    ...SCHEMA.resources.flatMap((r) => relationsOf(SCHEMA, r).map((x) => x.name)),
  ]),
]
const TRICKY = [
  '',
  ' ',
  ',',
  '.',
  '..',
  'a..b',
  '__proto__',
  'constructor',
  'toString',
  'user_id',
  'line_items',
  '💥',
]
const name = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...allNames) },
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 12 }),
)
const path = fc.array(name, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('.'))
const list = fc.oneof(
  fc.constant(null),
  fc.array(path, { minLength: 0, maxLength: 6 }).map((paths) => paths.join(',')),
  fc.string({ maxLength: 40 }),
)
const params: fc.Arbitrary<ShapeParams> = fc.record({
  fields: list,
  expand: list,
  expandLimit: fc.oneof(
    fc.constant(null),
    fc.integer({ min: -5, max: 120 }).map(String),
    fc.string({ maxLength: 4 }),
  ),
})
const resource = fc.constantFrom(...SCHEMA.resources)

/** Every field a shape shows is a field of the records it shapes, `id` first; every expansion a relation. */
function checkShape(shape: Shape, of: (typeof SCHEMA.resources)[number], depth: number): void {
  expect(depth).toBeLessThanOrEqual(2)
  expect(shape.limit).toBeGreaterThanOrEqual(1)
  expect(shape.limit).toBeLessThanOrEqual(100)
  if (shape.fields) {
    expect(shape.fields[0]).toBe('id')
    expect(new Set(shape.fields).size).toBe(shape.fields.length)
    for (const field of shape.fields) expect(baseFieldNames(of)).toContain(field)
  }
  for (const { relation, shape: inner } of shape.expand) {
    expect(relationsOf(SCHEMA, of)).toContain(relation)
    checkShape(inner, relation.target, depth + 1)
  }
}

describe('parseShape (fields, expand, expand_limit)', () => {
  it('accepts only known fields and relations, two levels at most, or answers 400 naming the parameter', () => {
    fc.assert(
      fc.property(resource, params, (of, given) => {
        try {
          checkShape(parseShape(SCHEMA, of, given), of, 0)
        } catch (error) {
          if (!(error instanceof ApiError)) throw error
          expect(error.code).toBe('BAD_REQUEST')
          expect(['fields', 'expand', 'expand_limit']).toContain(error.details[0]!.field)
        }
      }),
      { numRuns: 3000 },
    )
  })

  it('accepts every relation of every resource, and each pair of levels', () => {
    for (const of of SCHEMA.resources) {
      for (const relation of relationsOf(SCHEMA, of)) {
        const nested = relationsOf(SCHEMA, relation.target).map((r) => `${relation.name}.${r.name}`)
        const shape = parseShape(SCHEMA, of, {
          fields: null,
          expand: [relation.name, ...nested].join(','),
          expandLimit: '7',
        })
        expect(expansionsOf(shape).map((e) => e.path)).toEqual([relation.name, ...nested])
        expect(shape.expand[0]!.shape.limit).toBe(7)
      }
    }
  })

  it('accepts any subset of a resource fields, in any order and either case', () => {
    fc.assert(
      fc.property(resource, fc.infiniteStream(fc.boolean()), fc.boolean(), (of, picks, snake) => {
        const names = baseFieldNames(of)
        const chosen = names.filter(() => picks.next().value)
        if (chosen.length === 0) return
        const written = chosen.map((n) => (snake ? n.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : n))
        const shape = parseShape(SCHEMA, of, {
          fields: written.reverse().join(','),
          expand: null,
          expandLimit: null,
        })
        expect(new Set(shape.fields)).toEqual(new Set(['id', ...chosen]))
      }),
    )
  })

  it('fields across collections: known names only, never an expansion', () => {
    fc.assert(
      fc.property(params, (given) => {
        try {
          const fields = parseAcrossFields(given, SCHEMA.resources)
          expect(given.expand).toBeNull()
          if (fields) for (const f of fields) expect(allNames).toContain(f)
        } catch (error) {
          if (!(error instanceof ApiError)) throw error
          expect(error.code).toBe('BAD_REQUEST')
        }
      }),
    )
  })
})
