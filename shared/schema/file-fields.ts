/**
 * The checks of one collection's fields in a schema file whose shape is right (file-shape.ts): their
 * names, limits, defaults, references and the query parameters they give. Each problem is a line
 * naming its place.
 */
import { Value } from '@sinclair/typebox/value'
import { fieldFilterParams, LIST_PARAMS } from '../query/list-params.ts'
import type { FieldDeclaration } from '../resources/fields.ts'
import { fieldFromDeclaration, type ResourceDeclaration } from './declaration.ts'
import { place } from './file-place.ts'

/** camelCase: a field's and a singular's name (`authorId`, `lineItem`). */
export const CAMEL = /^[a-z][a-zA-Z0-9]*$/

/** Every record has these; a file declares none of them. */
const SYSTEM_FIELDS = ['id', 'createdAt', 'updatedAt', 'orgId']

/** Query parameters of every list, and of what lists will take, which no filter may take. */
const TAKEN_PARAMS = new Set<string>([
  ...LIST_PARAMS,
  // The dates every collection filters on (shared/query/list-params.ts).
  'created_after',
  'created_before',
  'updated_after',
  'updated_before',
  'confirm',
  // GraphQL's name for limit.
  'first',
  'group_by',
  'aggregate',
])

/** An enum value: in paths (`/books?status=lent`), event data and GraphQL, without quoting. */
const ENUM_VALUE = /^[a-z][a-z0-9_]*$/

/** What the checks need to know of the whole file. */
export interface FileIndex {
  /** Collections a reference may name: the declared ones and `users`. */
  targets: ReadonlySet<string>
  prefixOf: (collection: string) => string
}

/** The lengths a value of each text format can have: limits outside them leave no valid value. */
const FORMAT_LENGTHS: Record<string, { shortest: number; longest: number; says: string }> = {
  country: { shortest: 2, longest: 2, says: 'a country code has 2 letters' },
  currency: { shortest: 3, longest: 3, says: 'a currency code has 3 letters' },
  // a@b.c; shared/formats.ts takes no address longer than 254.
  email: { shortest: 5, longest: 254, says: 'an e-mail address has 5 to 254 characters' },
  // a:b, a scheme and something after it.
  uri: { shortest: 3, longest: Number.MAX_SAFE_INTEGER, says: 'a URL has at least 3 characters' },
}

/** The query parameters a field's filter gives (`pages_gte`), as lists take them. */
const filterParams = (name: string, field: FieldDeclaration): string[] =>
  field.filter === undefined ? [] : fieldFilterParams(name, field.filter).map((p) => p.name)

function limitProblems(at: (key: string) => string, field: FieldDeclaration): string[] {
  const problems: string[] = []
  // The limits in force, the defaults of fields.ts where one is left out.
  const given = field.min !== undefined || field.max !== undefined
  const min = field.min ?? (field.type === 'text' ? 1 : 0)
  const max = field.max ?? (field.type === 'text' ? 200 : Number.MAX_SAFE_INTEGER)
  if (given && min > max)
    problems.push(
      `${at(field.min === undefined ? 'max' : 'min')}: min ${min}${field.min === undefined ? ' (the default)' : ''} is greater than max ${max}${field.max === undefined ? ' (the default)' : ''}`,
    )
  if (field.type === 'text' && field.max === 0)
    problems.push(`${at('max')}: a text of at most 0 characters holds nothing`)
  const lengths = field.type === 'text' && field.format ? FORMAT_LENGTHS[field.format] : undefined
  if (lengths && min <= max && (max < lengths.shortest || min > lengths.longest))
    problems.push(
      `${at(max < lengths.shortest ? 'max' : 'min')}: no ${field.format} is between ${min} and ${max} characters long (${lengths.says})`,
    )
  for (const [i, value] of (field.values ?? []).entries())
    if (!ENUM_VALUE.test(value))
      problems.push(
        `${at('values')}[${i}]: ${JSON.stringify(value)} must be lowercase letters, digits and _, starting with a letter`,
      )
  return problems
}

function optionProblems(
  at: (key: string) => string,
  name: string,
  field: FieldDeclaration,
  fields: Record<string, FieldDeclaration>,
  index: FileIndex,
  isParentField: boolean,
): string[] {
  const problems: string[] = []
  if (field.type === 'reference') {
    if (!index.targets.has(field.to!)) problems.push(`${at('to')}: no collection ${JSON.stringify(field.to)}`)
    if (!/Id$/.test(name))
      problems.push(
        `${at('')}: a reference's name ends in Id (${name}Id), which names its relation (${name})`,
      )
    if (field.defaultToCaller && field.to !== 'users')
      problems.push(`${at('defaultToCaller')}: only a reference to users can default to the caller`)
    if (field.defaultToCaller && !field.nullable)
      problems.push(`${at('defaultToCaller')}: needs nullable: true (a client-credentials token has no user)`)
  }
  if (field.currencyField !== undefined) {
    const currency = fields[field.currencyField]
    if (currency?.type !== 'text' || currency.format !== 'currency')
      problems.push(
        `${at('currencyField')}: no text field ${JSON.stringify(field.currencyField)} of format currency`,
      )
  }
  if (field.readOnly && field.required)
    problems.push(`${at('required')}: a read-only field cannot be required (no client may send it)`)
  if (field.required === false && !field.nullable && field.default === undefined && !field.readOnly)
    problems.push(`${at('required')}: a field that may be left out needs a default or nullable: true`)
  if (field.readOnly && !field.nullable && field.default === undefined && !isParentField)
    problems.push(
      `${at('readOnly')}: a read-only field needs a default or nullable: true, or no record could be made`,
    )
  if (field.readOnly && field.unique && field.default !== undefined && field.default !== null)
    problems.push(
      `${at('unique')}: a read-only field starts at its default in every record, so a second record could not be made`,
    )
  for (const param of filterParams(name, field))
    if (TAKEN_PARAMS.has(param))
      problems.push(`${at('filter')}: its query parameter ${param} is one every list already takes`)
  return problems
}

/** The default must be a value the field accepts (or null when it is nullable). */
function defaultProblems(at: (key: string) => string, field: FieldDeclaration, index: FileIndex): string[] {
  if (field.default === undefined || (field.default === null && field.nullable)) return []
  if (field.type === 'reference') return [`${at('default')}: a reference takes no default`]
  if (field.type === 'enum' && !field.values?.includes(field.default as string))
    return [`${at('default')}: ${JSON.stringify(field.default)} is not one of the values`]
  const { schema } = fieldFromDeclaration(field, index.prefixOf)
  const error = Value.Errors(schema, field.default).First()
  if (!error) return []
  const reason = error.message.charAt(0).toLowerCase() + error.message.slice(1)
  return [`${at('default')}: ${JSON.stringify(field.default)} is not a value of this field (${reason})`]
}

/** Two fields whose filters give one query parameter (`pages` with a range, and `pagesGte`). */
function parameterClashes(collection: string, fields: Record<string, FieldDeclaration>): string[] {
  const problems: string[] = []
  const owners = new Map<string, string>()
  for (const [name, field] of Object.entries(fields)) {
    for (const param of filterParams(name, field)) {
      const owner = owners.get(param)
      if (owner)
        problems.push(
          `${place('resources', collection, 'fields', name, 'filter')}: its query parameter ${param} is also the filter of ${owner}`,
        )
      else owners.set(param, name)
    }
  }
  return problems
}

/** Every problem of a collection's fields. */
export function fieldProblems(collection: string, resource: ResourceDeclaration, index: FileIndex): string[] {
  const problems: string[] = []
  // GraphQL's create, update and replace inputs cannot be empty, nor is a record a client cannot fill.
  if (!Object.values(resource.fields).some((f) => !f.readOnly))
    problems.push(`${place('resources', collection, 'fields')}: declares no field a client may write`)
  problems.push(...parameterClashes(collection, resource.fields))
  for (const [name, field] of Object.entries(resource.fields)) {
    if (name === '$comment') continue
    const at = (key: string) => place('resources', collection, 'fields', name, ...(key ? [key] : []))
    if (!CAMEL.test(name)) {
      problems.push(`${at('')}: a field's name is camelCase (title, authorId)`)
      continue
    }
    if (SYSTEM_FIELDS.includes(name)) {
      problems.push(`${at('')}: ${name} is reserved: every record has it`)
      continue
    }
    problems.push(
      ...limitProblems(at, field),
      ...optionProblems(at, name, field, resource.fields, index, resource.parent?.field === name),
      ...defaultProblems(at, field, index),
    )
  }
  return problems
}
