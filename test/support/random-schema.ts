/**
 * Random valid schema declarations (docs/schema.md) for the property tests: 2-5 collections, each of
 * 1-8 fields drawn from every type with every option its type takes, some nested under an earlier
 * collection, some with actions on an enum or boolean field. A collection references only earlier
 * ones (or `users`), so every record can be made: a cycle of required references could not be.
 */
import fc from 'fast-check'
import type { FieldDeclaration } from '../../shared/resources/fields.ts'
import type { ResourceDeclaration, SchemaDeclaration } from '../../shared/schema/declaration.ts'

/** Collections to draw from: name, singular, prefix; one name of two words. */
const COLLECTIONS: readonly [string, string, string][] = [
  ['widgets', 'widget', 'wid'],
  ['gadgets', 'gadget', 'gad'],
  ['work-orders', 'workOrder', 'wko'],
  ['parcels', 'parcel', 'par'],
  ['tickets', 'ticket', 'tkt'],
  ['ledgers', 'ledger', 'ldg'],
  ['badges', 'badge', 'bdg'],
]
const STATES = ['draft', 'open', 'on_hold', 'closed', 'archived'] as const
const ACTIONS: readonly [string, string][] = [
  ['approve', 'approved'],
  ['close', 'closed'],
  ['mark-held', 'held'],
  ['reopen', 'reopened'],
]
const TYPES = ['text', 'integer', 'boolean', 'enum', 'reference', 'timestamp', 'json', 'list'] as const
type Generate = fc.GeneratorValue

const maybe = <T>(g: Generate, value: () => T): T | undefined => (g(fc.boolean) ? value() : undefined)

/** The options of a text field: lengths or a format, and what a text may be asked for. */
function textField(g: Generate): FieldDeclaration {
  const format = g(fc.constantFrom, undefined, undefined, 'email', 'uri', 'currency', 'country')
  const search = !format && g(fc.boolean)
  // A searched text holds a whole word of the test's values; a formatted one its format's length.
  const min = format ? undefined : maybe(g, () => g(fc.integer, { min: 1, max: 5 }))
  const max = format ? undefined : maybe(g, () => g(fc.integer, { min: search ? 12 : 6, max: 300 }))
  return {
    type: 'text',
    ...(min !== undefined ? { min } : {}),
    ...(max !== undefined ? { max } : {}),
    ...(format ? { format } : {}),
    ...(search ? { search } : {}),
    ...(g(fc.boolean) ? { filter: 'eq' as const } : {}),
    ...(g(fc.boolean) ? { sort: true } : {}),
    ...(g(fc.boolean) ? { unique: true } : {}),
  }
}

const rangeFilter = (g: Generate): FieldDeclaration['filter'] =>
  g(fc.constantFrom, undefined, 'eq' as const, 'range' as const, 'eq+range' as const)

/** A field of `type` with the options that type takes (not yet nullable, defaulted or read-only). */
function fieldOf(g: Generate, type: (typeof TYPES)[number], targets: readonly string[]): FieldDeclaration {
  const flag = (key: 'sort' | 'unique') => (g(fc.boolean) ? { [key]: true } : {})
  const eq = () => (g(fc.boolean) ? { filter: 'eq' as const } : {})
  switch (type) {
    case 'text':
      return textField(g)
    case 'integer': {
      const min = maybe(g, () => g(fc.integer, { min: -1000, max: 1000 }))
      const max = maybe(g, () => (min ?? 0) + g(fc.integer, { min: 10, max: 100_000 }))
      const filter = rangeFilter(g)
      return {
        type,
        ...(min !== undefined ? { min } : {}),
        ...(max !== undefined ? { max } : {}),
        ...(filter ? { filter } : {}),
        ...flag('sort'),
        ...flag('unique'),
      }
    }
    case 'boolean':
      return { type, ...eq(), ...flag('sort') }
    case 'enum':
      return { type, values: g(fc.shuffledSubarray, [...STATES], { minLength: 2 }), ...eq(), ...flag('sort') }
    case 'reference':
      return { type, to: g(fc.constantFrom, ...targets, 'users'), ...eq(), ...flag('sort') }
    case 'timestamp': {
      const filter = rangeFilter(g)
      return { type, ...(filter ? { filter } : {}), ...flag('sort'), ...flag('unique') }
    }
    case 'json':
      return { type }
    case 'list':
      return {
        type,
        ...(g(fc.boolean) ? { maxItems: g(fc.integer, { min: 2, max: 10 }) } : {}),
        ...(g(fc.boolean) ? { maxLength: g(fc.integer, { min: 8, max: 100 }) } : {}),
      }
  }
}

/** A default the field accepts. */
function defaultOf(field: FieldDeclaration): unknown {
  switch (field.type) {
    case 'text': {
      const byFormat: Record<string, string> = {
        email: 'nobody@example.com',
        uri: 'https://example.com/',
        currency: 'EUR',
        country: 'FR',
      }
      return field.format
        ? byFormat[field.format]
        : 'standard'.slice(0, field.max ?? 200).padEnd(field.min ?? 1, 'x')
    }
    case 'integer':
      return field.min ?? 0
    case 'boolean':
      return false
    case 'enum':
      return field.values![field.values!.length - 1]
    case 'timestamp':
      return '2020-02-02T00:00:00.000Z'
    case 'json':
      return { kind: 'default', list: [1, 2] }
    case 'list':
      return ['default']
    default:
      return undefined
  }
}

/** Nullable, default, required and read-only, as docs/schema.md allows them together. */
function withPresence(g: Generate, field: FieldDeclaration): FieldDeclaration {
  const nullable = g(fc.boolean)
  // A reference takes no default; a unique field shares no default between records.
  const canDefault = field.type !== 'reference' && !field.unique
  const fallback = canDefault && g(fc.boolean) ? defaultOf(field) : undefined
  const optional = nullable || fallback !== undefined
  const readOnly = optional && !field.unique && g(fc.integer, { min: 0, max: 4 }) === 0
  const required = readOnly ? undefined : g(fc.constantFrom, undefined, !optional)
  const callerDefault = field.type === 'reference' && field.to === 'users' && nullable && g(fc.boolean)
  return {
    ...field,
    ...(nullable ? { nullable } : {}),
    ...(fallback !== undefined ? { default: fallback } : {}),
    ...(readOnly ? { readOnly } : {}),
    ...(required !== undefined ? { required } : {}),
    ...(callerDefault ? { defaultToCaller: true } : {}),
  }
}

/** Actions on the collection's enum and boolean fields, each from states other than its target. */
function actionsOf(g: Generate, fields: Record<string, FieldDeclaration>): ResourceDeclaration['actions'] {
  const stateful = Object.keys(fields).filter((f) => ['enum', 'boolean'].includes(fields[f]!.type))
  if (stateful.length === 0 || !g(fc.boolean)) return undefined
  const chosen = g(fc.shuffledSubarray, [...ACTIONS], { minLength: 1, maxLength: 3 })
  return Object.fromEntries(
    chosen.map(([name, past]) => {
      const field = g(fc.constantFrom, ...stateful)
      const states: readonly (string | boolean)[] = fields[field]!.values ?? [true, false]
      const to = g(fc.constantFrom, ...states)
      const others = states.filter((s) => s !== to)
      const from = g(fc.shuffledSubarray, others, { minLength: 1 })
      return [name, { field, from, to, past, summary: `${name} it` }] as const
    }),
  ) as ResourceDeclaration['actions']
}

function resourceOf(
  g: Generate,
  index: number,
  earlier: readonly string[],
  all: readonly string[],
): [string, ResourceDeclaration] {
  const [name, singular, prefix] = COLLECTIONS[index]!
  const types = g(fc.array, fc.constantFrom(...TYPES), { minLength: 1, maxLength: 8 })
  const fields: Record<string, FieldDeclaration> = {}
  for (const [i, type] of types.entries()) {
    const field = withPresence(g, fieldOf(g, type, earlier))
    // A nullable reference may name any collection, itself or a later one: a cycle it may close.
    if (field.type === 'reference' && field.nullable && !field.defaultToCaller && g(fc.boolean))
      field.to = g(fc.constantFrom, ...all)
    if (g(fc.integer, { min: 0, max: 5 }) === 0) field.description = `The ${type} of a ${singular}.`
    fields[type === 'reference' ? `ref${i}Id` : `${type}${i}`] = field
  }
  // An amount in minor units whose currency is a text field of format currency.
  const currency = Object.keys(fields).find((f) => fields[f]!.format === 'currency')
  const amount = Object.keys(fields).find((f) => fields[f]!.type === 'integer')
  if (currency && amount && g(fc.boolean)) fields[amount]!.currencyField = currency
  // A client writes at least one field of every collection.
  if (Object.values(fields).every((f) => f.readOnly)) fields.label = { type: 'text', max: 40 }
  const parentCollection = earlier.length > 0 && g(fc.boolean) ? g(fc.constantFrom, ...earlier) : undefined
  const parentSingular = COLLECTIONS.find(([n]) => n === parentCollection)?.[1]
  const parent = parentCollection ? { collection: parentCollection, field: `${parentSingular}Id` } : undefined
  // Declared or left out for the service to add.
  if (parent && g(fc.boolean))
    fields[parent.field] = { type: 'reference', to: parent.collection, readOnly: true }
  const actions = actionsOf(g, fields)
  const description = g(fc.boolean) ? { description: `${name} of the property test` } : {}
  return [
    name,
    {
      singular,
      prefix,
      ...description,
      ...(parent ? { parent } : {}),
      fields,
      ...(actions ? { actions } : {}),
    },
  ]
}

/** A random valid schema declaration. */
export const validSchema: fc.Arbitrary<SchemaDeclaration> = fc.gen().map((g) => {
  const picked = g(fc.shuffledSubarray, [...COLLECTIONS.keys()], { minLength: 2, maxLength: 5 })
  const resources: Record<string, ResourceDeclaration> = {}
  const all = picked.map((index) => COLLECTIONS[index]![0])
  for (const index of picked) {
    const [name, declaration] = resourceOf(g, index, Object.keys(resources), all)
    resources[name] = declaration
  }
  return { resources }
})
