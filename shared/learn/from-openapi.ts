/**
 * The collections a server serves, read from its OpenAPI document (server/openapi/): fields and
 * their types, enum values, required and read-only fields and defaults from the component
 * schemas, filters from each list's parameters, actions from the action paths, and from each
 * collection's tag the `x-collection` extension (singular, id prefix, parent, sort and search
 * fields), which OpenAPI has no place for. The result is the collections' declaration, which the
 * CLI keeps (cli/learn/cache.ts) and builds its Schema from, and which the console
 * (server/console/app/) builds its pages from: one reader for both.
 */
import { camelCase } from '../query/fields.ts'
import { PAGINATION_PARAMS } from '../query/pagination.ts'
import { SHAPE_PARAMS } from '../query/shape.ts'
import type { FieldDeclaration, FilterKind } from '../resources/fields.ts'
import type { ResourceDeclaration } from '../schema/declaration.ts'
import { pascal } from '../words.ts'

type Json = Record<string, unknown>

/** An action as the CLI knows it: its name and what it does. */
export interface LearnedAction {
  name: string
  summary: string
}

/** What the CLI learns of a server: the declared collections and their actions. */
export interface Learned {
  resources: Record<string, ResourceDeclaration>
  actions: Record<string, LearnedAction[]>
  /** Fields shown once (a secret, in the answer to the create or an action), by collection. */
  revealed?: Record<string, string[]>
  /** The scopes that guard each collection, and whether records may be written through it. */
  access?: Record<string, LearnedAccess>
}

/** The scopes that read and write a collection (another's, for deliveries), and whether it is writable. */
export interface LearnedAccess {
  read: string
  write: string
  writable: boolean
}

/** The document does not describe collections as this CLI reads them. */
export class UnreadableDocument extends Error {
  override name = 'UnreadableDocument'
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const objectAt = (value: unknown, key: string): Json => {
  const found = isObject(value) ? value[key] : undefined
  return isObject(found) ? found : {}
}
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
const numberAt = (schema: Json, key: string) => (typeof schema[key] === 'number' ? schema[key] : undefined)

/** The parts a schema of a nullable value is made of: itself, or its non-null member. */
function unwrapNull(schema: Json): { schema: Json; nullable: boolean } {
  for (const key of ['anyOf', 'oneOf']) {
    const members = Array.isArray(schema[key]) ? (schema[key] as unknown[]).filter(isObject) : []
    const rest = members.filter((m) => m.type !== 'null')
    if (members.length > 0 && rest.length < members.length && rest.length === 1)
      return {
        schema: { ...rest[0], ...(schema.default === undefined ? {} : { default: schema.default }) },
        nullable: true,
      }
  }
  if (Array.isArray(schema.type) && schema.type.includes('null')) {
    const type = (schema.type as unknown[]).filter((t) => t !== 'null')
    return { schema: { ...schema, type: type[0] }, nullable: true }
  }
  return { schema, nullable: false }
}

/** Enum values: `enum`, or an anyOf of string constants (how TypeBox writes a union of literals). */
function enumValues(schema: Json): string[] | undefined {
  if (Array.isArray(schema.enum)) return strings(schema.enum)
  const members = Array.isArray(schema.anyOf) ? schema.anyOf : undefined
  if (!members?.every((m) => isObject(m) && typeof m.const === 'string')) return undefined
  return members.map((m) => (m as Json).const as string)
}

/** The field a property schema describes; `prefixes` maps id prefixes to collections. */
function fieldOf(property: Json, prefixes: Map<string, string>): FieldDeclaration {
  const { schema } = unwrapNull(property)
  const values = enumValues(schema)
  if (values) return { type: 'enum', values }
  if (schema.type === 'boolean') return { type: 'boolean' }
  if (schema.type === 'integer')
    return { type: 'integer', min: numberAt(schema, 'minimum'), max: numberAt(schema, 'maximum') }
  // A v2 money object ({value, currency}): an integer amount with its currency beside it, as the
  // server declares it; the CLI writes it as `amount[value]:=1200 amount[currency]=EUR`.
  const members = objectAt(schema, 'properties')
  if (schema.type === 'object' && isObject(members.value) && isObject(members.currency))
    return { type: 'integer', min: numberAt(members.value, 'minimum'), currencyField: 'currency' }
  if (schema.type === 'array') return { type: 'list' }
  if (schema.type === 'string') {
    const prefix =
      typeof schema.pattern === 'string' ? /^\^([a-z]{2,4})_/.exec(schema.pattern)?.[1] : undefined
    const to = prefix === undefined ? undefined : prefixes.get(prefix)
    if (to !== undefined) return { type: 'reference', to }
    if (schema.format === 'date-time') return { type: 'timestamp' }
    return {
      type: 'text',
      min: numberAt(schema, 'minLength'),
      max: numberAt(schema, 'maxLength'),
      ...(typeof schema.format === 'string' ? { format: schema.format } : {}),
    }
  }
  return { type: 'json' }
}

/** Filters by field, from a list's query parameters (`status`, `pages_gte`, `pages_lte`). */
function filtersOf(parameters: unknown, known: ReadonlySet<string>): Map<string, FilterKind> {
  const ops = new Map<string, Set<string>>()
  for (const p of Array.isArray(parameters) ? parameters.filter(isObject) : []) {
    if (p.in !== 'query' || typeof p.name !== 'string') continue
    const [, base, bound] = /^(.+?)(?:_(gte|lte))?$/.exec(p.name)!
    const field = camelCase(base!)
    if (!known.has(field)) continue
    ops.set(field, (ops.get(field) ?? new Set()).add(bound ? 'range' : 'eq'))
  }
  return new Map(
    [...ops].map(([field, kinds]) => [field, kinds.size === 2 ? 'eq+range' : ([...kinds][0] as FilterKind)]),
  )
}

/** Query parameters of a list that are not filters of a field (pagination, shaping, search). */
const NOT_FILTERS = new Set<string>([
  ...PAGINATION_PARAMS,
  ...SHAPE_PARAMS,
  'sort',
  'q',
  'search',
  'created_after',
  'created_before',
  'updated_after',
  'updated_before',
])

/** A filter parameter may name a field the record does not show (v2 folds `currency` into money). */
function hiddenFilterFields(parameters: unknown, record: Json): Record<string, FieldDeclaration> {
  const fields: Record<string, FieldDeclaration> = {}
  for (const p of Array.isArray(parameters) ? parameters.filter(isObject) : []) {
    if (p.in !== 'query' || typeof p.name !== 'string' || NOT_FILTERS.has(p.name)) continue
    const field = camelCase(p.name.replace(/_(gte|lte)$/, ''))
    if (field in record || field in fields) continue
    fields[field] = objectAt(p, 'schema').type === 'integer' ? { type: 'integer' } : { type: 'text' }
  }
  return fields
}

/**
 * What a server's OpenAPI document says of its collections under `prefix` (`/api/v2`); the
 * service's own (`service`, always served) are left out. Throws UnreadableDocument when the
 * document does not describe collections.
 */
export function learnFromDocument(document: unknown, prefix: string, service: readonly string[]): Learned {
  const tags = (isObject(document) && Array.isArray(document.tags) ? document.tags : []).filter(
    (t): t is Json => isObject(t) && typeof t.name === 'string' && isObject(t['x-collection']),
  )
  if (!isObject(document) || tags.length === 0)
    throw new UnreadableDocument('its API description names no collections (no x-collection tags)')
  const paths = objectAt(document, 'paths')
  const components = objectAt(objectAt(document, 'components'), 'schemas')
  const prefixes = new Map(tags.map((t) => [String(objectAt(t, 'x-collection').prefix), String(t.name)]))
  const learned: Learned = { resources: {}, actions: {} }
  for (const tag of tags) {
    const name = tag.name as string
    if (service.includes(name)) continue
    const about = objectAt(tag, 'x-collection')
    if (typeof about.singular !== 'string' || typeof about.prefix !== 'string')
      throw new UnreadableDocument(`the collection ${name} has no singular or prefix`)
    const record = objectAt(objectAt(components, pascal(about.singular)), 'properties')
    const create = objectAt(components, `${pascal(about.singular)}Create`)
    const writable = objectAt(create, 'properties')
    const required = strings(create.required)
    const list = objectAt(objectAt(paths, `${prefix}/${name}`), 'get')
    const hidden = hiddenFilterFields(list.parameters, record)
    const names = [...Object.keys(record), ...Object.keys(hidden)].filter(
      (f) => !['id', 'createdAt', 'updatedAt'].includes(f),
    )
    const filters = filtersOf(list.parameters, new Set(names))
    const sort = strings(about.sort)
    const search = strings(about.search)
    const fields: Record<string, FieldDeclaration> = {}
    for (const field of names) {
      const property = objectAt(record, field)
      const given = isObject(writable[field]) ? (writable[field] as Json) : undefined
      const declared = hidden[field] ?? fieldOf(property, prefixes)
      const filter = filters.get(field)
      fields[field] = {
        ...Object.fromEntries(Object.entries(declared).filter(([, v]) => v !== undefined)),
        type: declared.type,
        nullable: field in hidden ? false : unwrapNull(property).nullable,
        required: required.includes(field),
        // A field no create body takes: the service's, the parent's id, or one v2 shows in an object.
        readOnly: given === undefined,
        ...(given?.default === undefined ? {} : { default: given.default }),
        ...(filter ? { filter } : {}),
        ...(sort.includes(field) ? { sort: true } : {}),
        ...(search.includes(field) ? { search: true } : {}),
      }
    }
    const parent = objectAt(about, 'parent')
    learned.resources[name] = {
      singular: about.singular,
      prefix: about.prefix,
      ...(typeof parent.collection === 'string' && typeof parent.field === 'string'
        ? { parent: { collection: parent.collection, field: parent.field } }
        : {}),
      fields,
    }
    const revealed = strings(about.revealed)
    if (revealed.length > 0) learned.revealed = { ...learned.revealed, [name]: revealed }
    const scopes = objectAt(about, 'scopes')
    learned.access = {
      ...learned.access,
      [name]: {
        read: typeof scopes.read === 'string' ? scopes.read : `read:${name}`,
        write: typeof scopes.write === 'string' ? scopes.write : `write:${name}`,
        writable: about.writable !== false,
      },
    }
    learned.actions[name] = Object.entries(paths).flatMap(([path, item]) => {
      const action = new RegExp(`^${prefix}/${name}/\\{id\\}/([a-z][a-z0-9-]*)$`).exec(path)?.[1]
      const post = objectAt(item, 'post')
      return action && Object.keys(post).length > 0
        ? [{ name: action, summary: typeof post.summary === 'string' ? post.summary : action }]
        : []
    })
  }
  return learned
}
