/**
 * The examples of the commands that name a collection, made from the collections the server
 * serves (cli/learn/), so that each names a real collection, filter, field and action and runs as
 * printed: values that validate, ids as `prefix_…` placeholders to put in.
 */

import { groupableKeys, summableFields } from '../shared/query/aggregate-params.ts'
import { camelCase, snakeName } from '../shared/query/fields.ts'
import type { Field, Resource } from '../shared/resources/index.ts'
import type { Schema } from '../shared/schema/schema.ts'
import { exampleFilter } from './commands/list.ts'
import { filterFlags } from './resources.ts'

const FORMATTED: Record<string, string> = {
  email: 'ada@example.com',
  currency: 'EUR',
  country: 'DE',
  uri: 'https://example.com',
}

const quoted = (item: string) => (/^[\w@.:=/…-]+$/.test(item) ? item : `'${item.replace(/'/g, `'\\''`)}'`)

/** A field as `key=value` or `key:=json` items that validate (a v2 money object as two). */
function itemsOf(schema: Schema, name: string, field: Field, money: boolean): string[] {
  if (field.currencyField && money) return [`${name}[value]:=1200`, `${name}[currency]=EUR`]
  switch (field.kind) {
    case 'integer':
      return [`${name}:=${Math.max(1, Number(field.declaration.min ?? 1))}`]
    case 'boolean':
      return [`${name}:=true`]
    case 'enum':
      return [`${name}=${field.values![0]}`]
    case 'reference':
      return [`${name}=${schema.byName(field.references!)?.prefix ?? field.references}_…`]
    case 'timestamp':
      return [`${name}=2026-01-01T00:00:00Z`]
    case 'json':
      return [field.declaration.type === 'list' ? `${name}:=["example"]` : `${name}:={}`]
    default: {
      const text = FORMATTED[field.declaration.format ?? ''] ?? 'Example'
      const min = Number(field.declaration.min ?? 1)
      return [`${name}=${text.length >= min ? text : text.padEnd(min, 'x')}`]
    }
  }
}

/** The body of a create (and of a replace): every field it requires. */
function requiredItems(schema: Schema, resource: Resource, money: boolean): string {
  return resource.writableFields
    .filter((name) => resource.fields[name]!.required)
    .flatMap((name) => itemsOf(schema, name, resource.fields[name]!, money))
    .map(quoted)
    .join(' ')
}

/** A cell of a CSV file for the values `itemsOf` makes: the text after `=` or `:=`, quoted when it must be. */
function cellOf(item: string): string {
  const value = item.slice(item.indexOf('=') + 1).replace(/^=/, '')
  return /[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

/**
 * A two-line CSV file of the collection's required fields, written by printf: the header as the
 * version's records name the fields (v2 money as `amount.value`, `amount.currency`), then one row.
 */
function csvFile(schema: Schema, resource: Resource, money: boolean, file: string): string {
  const header: string[] = []
  const row: string[] = []
  for (const name of resource.writableFields.filter((f) => resource.fields[f]!.required)) {
    for (const item of itemsOf(schema, name, resource.fields[name]!, money)) {
      header.push(item.slice(0, item.search(/:?=/)).replace(/\[(\w+)\]$/, '.$1'))
      row.push(cellOf(item))
    }
  }
  return `printf '%s\\n' ${quoted(header.join(','))} ${quoted(row.join(','))} > ${file}`
}

/** The collection examples show: the first declared with a choice to filter on, else any. */
function featured(schema: Schema): Resource | undefined {
  const declared = schema.resources.filter((r) => !r.service && r.writable && !r.parent)
  const filters = (r: Resource, kind: string) =>
    filterFlags(r).some((f) => f.op === 'eq' && r.fields[f.field]?.kind === kind)
  return (
    declared.find((r) => filters(r, 'enum')) ??
    declared.find((r) => filterFlags(r).some((f) => f.op === 'eq' && r.fields[f.field])) ??
    declared[0]
  )
}

/** The examples of each command that takes a collection, by command; none without collections. */
export function collectionExamples(schema: Schema, version: string): Record<string, string[]> {
  const resource = featured(schema)
  if (!resource) return {}
  const name = resource.name
  const id = `${resource.prefix}_…`
  const money = version === 'v2'
  const filter = exampleFilter(schema, resource, false)
  const sort = resource.sortable.find((f) => resource.fields[f])
  const nested = schema.resources.find((r) => !r.service && r.parent)
  const parent = nested && schema.byName(nested.parent!.collection)
  const state = resource.writableFields.find((f) => resource.fields[f]!.kind === 'enum')
  const stateValues = state ? resource.fields[state]!.values! : []
  // One action of each of the first two collections that have some: each starts from a new record.
  const acting = schema.resources.filter((r) => !r.service && r.actions.length > 0).slice(0, 2)
  const body = requiredItems(schema, resource, money)
  const keys = groupableKeys(resource).filter((k) => !k.includes(':'))
  const key = keys.find((k) => resource.fields[camelCase(k)]?.kind === 'enum') ?? keys[0]
  const summed = summableFields(resource)[0]
  // The last value of a state (`cancelled`, `lost`) is the one an example may delete.
  const last = filter && state ? `--${filter.split(' ')[0]!.slice(2)} ${stateValues.at(-1)}` : filter
  return {
    list: [
      `api list ${name}${filter ? ` ${filter}` : ''}`,
      `api list ${name}${sort ? ` --sort -${sort}` : ''} --all | jq length`,
      `api list ${name} --all --format csv > ${name}.csv`,
      ...(nested && parent ? [`api list ${parent.name}/${parent.prefix}_…/${nested.name}`] : []),
    ],
    aggregate: [
      `api aggregate ${name}${key ? ` --group-by ${key}` : ''} --count${summed ? ` --sum ${snakeName(summed)}` : ''}`,
      `api aggregate ${name} --group-by created_at:month --count --all`,
    ],
    get: [`api get ${name} ${id}`],
    create: [
      `api create ${name}${body ? ` ${body}` : ''}`,
      ...(nested && parent
        ? [
            `api create ${parent.name}/${parent.prefix}_…/${nested.name} ${requiredItems(schema, nested, money)}`.trimEnd(),
          ]
        : []),
    ],
    update: state && stateValues.length > 1 ? [`api update ${name} ${id} ${state}=${stateValues[1]}`] : [],
    replace: [`api replace ${name} ${id}${body ? ` ${body}` : ''}`],
    delete: [`api delete ${name} ${id}`, ...(last ? [`api delete ${name} ${last} --confirm`] : [])],
    query: [
      `api query ${name} --sql "SELECT * FROM ${name} ORDER BY created_at DESC LIMIT 5"`,
      `api query ${name} --sql "SELECT id FROM ${name}" --all | jq length`,
      ...(key ? [`api query ${name} --sql "SELECT ${key}, count(*) FROM ${name} GROUP BY ${key}"`] : []),
    ],
    action: acting.map((r) => `api action ${r.name} ${r.prefix}_… ${r.actions[0]!.name}`),
    import: [
      `${csvFile(schema, resource, money, `${name}.csv`)} && api import ${name} ${name}.csv --dry-run`,
      `api import ${name} ${name}.csv --chunk-size 1000`,
    ],
  }
}
