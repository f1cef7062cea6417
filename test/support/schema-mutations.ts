/**
 * Invalid schema files for the refused property: a valid random declaration (random-schema.ts) with
 * one change that breaks one rule of docs/schema.md, and the place in the file the check must name.
 */
import fc from 'fast-check'
import type { SchemaDeclaration } from '../../shared/schema/declaration.ts'
import { validSchema } from './random-schema.ts'

type Resources = Record<string, Record<string, unknown> & { fields: Record<string, unknown> }>

/** One broken file: what it holds, which rule it breaks, and where that is (`resources.x.fields.y`). */
export interface BrokenSchema {
  rule: string
  file: { resources: Resources }
  /** Places of which the check names at least one. */
  places: string[]
}

type Mutation = (resources: Resources, name: string, g: fc.GeneratorValue) => string[]

const at = (...keys: string[]) => ['resources', ...keys].join('.')
const action = (field: string, from: unknown[], to: unknown) => ({
  field,
  from,
  to,
  past: 'flagged',
  summary: 'Flag it',
})

/** Each rule, and how to break it in collection `name` of a valid file. */
const MUTATIONS: Record<string, Mutation> = {
  'unknown field option': (r, name) => {
    const field = Object.keys(r[name]!.fields)[0]!
    Object.assign(r[name]!.fields[field] as object, { colour: 'red' })
    return [at(name, 'fields', field)]
  },
  'unknown collection key': (r, name) => {
    r[name]!.colour = 'red'
    return [at(name)]
  },
  'unknown type': (r, name) => {
    const field = Object.keys(r[name]!.fields)[0]!
    r[name]!.fields[field] = { type: 'decimal' }
    return [at(name, 'fields', field)]
  },
  'reference to an undeclared collection': (r, name) => {
    r[name]!.fields.ghostId = { type: 'reference', to: 'ghosts' }
    return [at(name, 'fields', 'ghostId', 'to')]
  },
  'parent not declared': (r, name) => {
    r[name]!.parent = { collection: 'ghosts', field: 'ghostId' }
    return [at(name, 'parent', 'collection')]
  },
  'duplicate prefix': (r, name) => {
    const other = Object.keys(r).find((n) => n !== name)!
    r[name]!.prefix = r[other]!.prefix
    return [at(name, 'prefix'), at(other, 'prefix')]
  },
  'prefix of the service': (r, name, g) => {
    r[name]!.prefix = g(fc.constantFrom, 'usr', 'evt', 'org', 'clt', 'qry')
    return [at(name, 'prefix')]
  },
  'prefix not 2-4 lowercase letters': (r, name, g) => {
    r[name]!.prefix = g(fc.constantFrom, 'x', 'abcde', 'Ab', 'a1')
    return [at(name, 'prefix')]
  },
  'singular not camelCase': (r, name, g) => {
    r[name]!.singular = g(fc.constantFrom, 'Widget', 'work order', 'work-order', '')
    return [at(name, 'singular')]
  },
  'reserved collection name': (r, _name, g) => {
    const reserved = g(
      fc.constantFrom,
      'users',
      'events',
      'search',
      'batch',
      'orgs',
      'oauth-codes',
      'notes-fts',
    )
    r[reserved] = { singular: 'reservedThing', prefix: 'rsv', fields: { note: { type: 'text' } } }
    return [at(reserved)]
  },
  'reserved field name': (r, name, g) => {
    const field = g(fc.constantFrom, 'id', 'createdAt', 'updatedAt', 'orgId')
    r[name]!.fields[field] = { type: 'text', nullable: true }
    return [at(name, 'fields', field)]
  },
  'filter whose parameter every list takes': (r, name, g) => {
    const field = g(fc.constantFrom, 'perPage', 'limit', 'cursor', 'sort', 'q', 'fields')
    r[name]!.fields[field] = { type: 'integer', filter: 'eq', nullable: true }
    return [at(name, 'fields', field)]
  },
  'reference not named ...Id': (r, name) => {
    r[name]!.fields.owner = { type: 'reference', to: 'users', nullable: true }
    return [at(name, 'fields', 'owner')]
  },
  'min greater than max': (r, name, g) => {
    const type = g(fc.constantFrom, 'text', 'integer')
    const min = g(fc.integer, { min: 5, max: 100 })
    r[name]!.fields.size = { type, min, max: min - g(fc.integer, { min: 1, max: 4 }) }
    return [at(name, 'fields', 'size', 'min')]
  },
  'default the field refuses': (r, name, g) => {
    r[name]!.fields.spare = g(
      fc.constantFrom,
      { type: 'integer', default: 'many' },
      { type: 'integer', min: 10, default: 3 },
      { type: 'text', max: 3, default: 'too long' },
      { type: 'enum', values: ['one', 'two'], default: 'three' },
      { type: 'boolean', default: 'yes' },
      { type: 'timestamp', default: 'yesterday' },
      { type: 'reference', to: 'users', default: 'usr_x' },
    )
    return [at(name, 'fields', 'spare', 'default')]
  },
  'enum value not lowercase': (r, name) => {
    r[name]!.fields.mood = { type: 'enum', values: ['happy', 'Very Sad'] }
    return [at(name, 'fields', 'mood', 'values')]
  },
  'read-only without default or nullable': (r, name) => {
    r[name]!.fields.stamp = { type: 'text', readOnly: true }
    return [at(name, 'fields', 'stamp', 'readOnly')]
  },
  'unique read-only field with a default': (r, name) => {
    r[name]!.fields.serial = { type: 'integer', readOnly: true, unique: true, default: 1 }
    return [at(name, 'fields', 'serial', 'unique')]
  },
  'action naming a missing field': (r, name) => {
    r[name]!.actions = { flag: action('nowhere', ['open'], 'closed') }
    return [at(name, 'actions', 'flag', 'field')]
  },
  'action naming a missing state': (r, name, g) => {
    r[name]!.fields.phase = { type: 'enum', values: ['one', 'two'], default: 'one' }
    const missingTo = g(fc.boolean)
    r[name]!.actions = { flag: action('phase', missingTo ? ['one'] : ['three'], missingTo ? 'three' : 'two') }
    return [at(name, 'actions', 'flag', missingTo ? 'to' : 'from')]
  },
  'two actions with one past tense': (r, name) => {
    r[name]!.fields.phase = { type: 'enum', values: ['one', 'two'], default: 'one' }
    r[name]!.actions = { flag: action('phase', ['one'], 'two'), mark: action('phase', ['two'], 'one') }
    return [at(name, 'actions', 'mark', 'past'), at(name, 'actions', 'flag', 'past')]
  },
  'parents forming a cycle': (r, name) => {
    const other = Object.keys(r).find((n) => n !== name)!
    r[name]!.parent = { collection: other, field: 'upId' }
    r[other]!.parent = { collection: name, field: 'downId' }
    return [at(name, 'parent', 'collection'), at(other, 'parent', 'collection')]
  },
  'caller default on a reference to another collection': (r, name) => {
    const other = Object.keys(r).find((n) => n !== name)!
    r[name]!.fields.ownerId = { type: 'reference', to: other, nullable: true, defaultToCaller: true }
    return [at(name, 'fields', 'ownerId', 'defaultToCaller')]
  },
  'optional without default or nullable': (r, name) => {
    r[name]!.fields.extra = { type: 'integer', required: false }
    return [at(name, 'fields', 'extra', 'required')]
  },
  'GraphQL name given twice': (r, name) => {
    // A collection whose singular is another's connection type: WidgetConnection.
    const singular = `${r[name]!.singular as string}Connection`
    const clash = `${name}-connections`
    r[clash] = { singular, prefix: 'gqc', fields: { note: { type: 'text' } } }
    return [at(clash), at(name)]
  },
}

/** A valid random file broken by one rule, with the place the check must name. */
export const brokenSchema: fc.Arbitrary<BrokenSchema> = fc
  .tuple(validSchema, fc.constantFrom(...Object.keys(MUTATIONS)), fc.gen())
  .map(([declaration, rule, g]: [SchemaDeclaration, string, fc.GeneratorValue]) => {
    const resources = structuredClone(declaration.resources) as unknown as Resources
    const name = g(fc.constantFrom, ...Object.keys(resources))
    const places = MUTATIONS[rule]!(resources, name, g)
    return { rule, file: { resources }, places }
  })
