import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { checkValue, validateBody, type WriteMode } from '../../server/resources/validate.ts'
import { ApiError } from '../../shared/errors.ts'
import { newId } from '../../shared/ids.ts'
import { exampleSchema, type Field, type Resource } from '../../shared/resources/index.ts'

const SCHEMA = exampleSchema()

const writable = SCHEMA.resources.filter((r) => r.writable)
const MODES: WriteMode[] = ['create', 'replace', 'patch']

/** Values close to what a field accepts, so that both sides of every check are exercised. */
function nearValue(field: Field): fc.Arbitrary<unknown> {
  const schema = field.schema as { minLength?: number; maxLength?: number; format?: string }
  switch (field.kind) {
    case 'text':
      if (schema.format === 'email') return fc.oneof(fc.emailAddress(), fc.string())
      if (schema.format === 'currency') return fc.constantFrom('EUR', 'USD', 'JPY', 'eur', 'XXXX', 'ZZZ', '')
      if (schema.format === 'country') return fc.constantFrom('DE', 'FR', 'US', 'de', 'EU', 'ZZ', 'DEU')
      if (schema.format === 'uri') return fc.oneof(fc.webUrl(), fc.string())
      return fc.string({ unit: 'grapheme', minLength: 0, maxLength: (schema.maxLength ?? 200) + 5 })
    case 'integer':
      return fc.oneof(fc.integer({ min: -3, max: 1_000_000 }), fc.double(), fc.constant(2 ** 53))
    case 'boolean':
      return fc.oneof(fc.boolean(), fc.constantFrom('true', 0, 1))
    case 'enum':
      return fc.oneof(fc.constantFrom(...field.values!), fc.string())
    case 'reference': {
      const prefix = SCHEMA.byName(field.references!)!.prefix
      return fc.oneof(
        fc.constant(null).map(() => newId(prefix)),
        fc.constant(newId('xyz')),
        fc.string(),
      )
    }
    default:
      // A list of strings (a webhook endpoint's eventTypes), or anything else.
      if ((field.schema as { type?: string }).type === 'array')
        return fc.oneof(
          fc.uniqueArray(fc.string({ minLength: 0, maxLength: 12 }), { maxLength: 4 }),
          fc.jsonValue(),
        )
      return fc.jsonValue()
  }
}

/** Keys a hostile client might send: real fields, system fields, prototype names and anything. */
const strangeKey = fc.oneof(
  fc.constantFrom(
    'id',
    'createdAt',
    'updatedAt',
    'orgId',
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
  ),
  fc.string({ maxLength: 12 }),
)

const validValue = (field: Field) => nearValue(field).filter((v) => checkValue(SCHEMA, field, v) === null)

function bodyFor(resource: Resource): fc.Arbitrary<unknown> {
  const entries = Object.entries(resource.fields).filter(([, f]) => !f.readOnly)
  const complete = fc.record(Object.fromEntries(entries.map(([name, f]) => [name, validValue(f)])))
  const partial = fc.record(
    Object.fromEntries(
      entries.map(([name, f]) => [
        name,
        fc.oneof({ weight: 3, arbitrary: validValue(f) }, nearValue(f), fc.constant(null)),
      ]),
    ),
    { requiredKeys: [] },
  )
  const extra = fc.option(fc.dictionary(strangeKey, fc.jsonValue(), { minKeys: 1, maxKeys: 2 }), { freq: 3 })
  const shaped = fc
    .tuple(fc.oneof(complete, partial), extra)
    // Through JSON, as a request body arrives: `__proto__` becomes an own key.
    .map(([fields, more]) => JSON.parse(JSON.stringify({ ...(more ?? {}), ...fields })))
  return fc.oneof({ weight: 6, arbitrary: shaped }, fc.jsonValue())
}

/** What the contract says validateBody accepts, stated independently of its code. */
function acceptable(resource: Resource, body: unknown, mode: WriteMode): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
  const entries = Object.entries(body)
  const fieldOk = ([name, value]: [string, unknown]) =>
    resource.writableFields.includes(name) && checkValue(SCHEMA, resource.fields[name]!, value) === null
  const required = Object.entries(resource.fields).filter(([, f]) => f.required && !f.readOnly)
  return entries.every(fieldOk) && (mode === 'patch' || required.every(([name]) => name in body))
}

describe('validateBody', () => {
  for (const resource of writable) {
    for (const mode of MODES) {
      it(`${mode} ${resource.name}: accepts exactly the valid bodies, and otherwise throws only a 422 naming fields`, () => {
        let accepted = 0
        fc.assert(
          fc.property(bodyFor(resource), (body) => {
            let values: Record<string, unknown>
            try {
              values = validateBody(SCHEMA, resource, body, mode)
            } catch (error) {
              expect(error).toBeInstanceOf(ApiError)
              const apiError = error as ApiError
              expect(apiError.status).toBe(422)
              expect(apiError.code).toBe('VALIDATION_ERROR')
              expect(apiError.details.length).toBeGreaterThan(0)
              expect(acceptable(resource, body, mode)).toBe(false)
              const sent = typeof body === 'object' && body !== null ? Object.keys(body) : []
              for (const { field, message } of apiError.details) {
                expect(message).toBeString()
                expect([...sent, ...resource.writableFields, 'body']).toContain(field)
              }
              return
            }
            accepted += 1
            expect(acceptable(resource, body, mode)).toBe(true)
            for (const [name, value] of Object.entries(values)) {
              expect(resource.writableFields).toContain(name)
              // A field neither required nor defaulted is left for the resource's hook to fill
              // (an OAuth client's grant types depend on `public`, its scopes on the schema).
              if (value === undefined && !resource.fields[name]!.required) continue
              expect(checkValue(SCHEMA, resource.fields[name]!, value)).toBeNull()
            }
            if (mode !== 'patch')
              expect(Object.keys(values).sort()).toEqual([...resource.writableFields].sort())
          }),
          { numRuns: 300 },
        )
        expect(accepted).toBeGreaterThan(0)
      })
    }
  }

  it('rejects a body that is not a JSON object with a detail naming body', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue().filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))),
        fc.constantFrom(...writable),
        (body, resource) => {
          expect(() => validateBody(SCHEMA, resource, body, 'create')).toThrow(ApiError)
          try {
            validateBody(SCHEMA, resource, body, 'patch')
          } catch (error) {
            expect((error as ApiError).details).toEqual([{ field: 'body', message: 'must be a JSON object' }])
          }
        },
      ),
    )
  })

  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'treats a %s key as an unknown field, not as a member of Object.prototype',
    (key) => {
      const body = JSON.parse(`{"${key}": 1}`)
      expect(() => validateBody(SCHEMA, SCHEMA.byName('orders')!, body, 'patch')).toThrow(ApiError)
      try {
        validateBody(SCHEMA, SCHEMA.byName('orders')!, body, 'patch')
      } catch (error) {
        expect((error as ApiError).details).toEqual([
          { field: key, message: 'is not a field of this resource' },
        ])
      }
    },
  )
})

describe('checkValue', () => {
  const fields = writable.flatMap((r) => Object.values(r.fields))
  it('answers a message or null for any field and any JSON value, never throwing', () => {
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.oneof(fc.jsonValue(), fc.anything()), (field, value) => {
        const answer = checkValue(SCHEMA, field, value)
        expect(answer === null || typeof answer === 'string').toBe(true)
      }),
      { numRuns: 2000 },
    )
  })
})
