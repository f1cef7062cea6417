import type { Field } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { collectionExamples } from '../help-examples.ts'
import { parseTarget } from '../resources.ts'

const row = (left: string, right: string) => `  ${left.padEnd(32)}${right}`

/** What a field takes, as `key=value` or `key:=json` (a v2 money object as its two members). */
function describe(schema: Schema, name: string, field: Field, money: boolean): [string, string] {
  const notes = [
    field.required ? 'required' : undefined,
    field.nullable ? 'may be null' : undefined,
    field.default !== undefined && field.default !== null
      ? `default ${JSON.stringify(field.default)}`
      : undefined,
  ].filter(Boolean)
  const tail = notes.length > 0 ? ` (${notes.join(', ')})` : ''
  if (field.currencyField && money)
    return [
      `${name}[value]:=N ${name}[currency]=C`,
      `an amount in minor units and its ISO 4217 currency${tail}`,
    ]
  const format = field.declaration.format ? `, ${field.declaration.format}` : ''
  const kind: Record<string, [string, string]> = {
    integer: [`${name}:=N`, 'a whole number'],
    boolean: [`${name}:=true|false`, 'true or false'],
    enum: [`${name}=VALUE`, `one of ${field.values?.join(', ')}`],
    reference: [
      `${name}=ID`,
      `the id of one of ${field.references} (${schema.byName(field.references ?? '')?.prefix}_…)`,
    ],
    timestamp: [`${name}=TIME`, 'a time, ISO 8601'],
    json: [`${name}:=JSON`, field.declaration.type === 'list' ? 'a list of strings' : 'any JSON'],
  }
  const [usage, what] = kind[field.kind] ?? [`${name}=TEXT`, `text${format}`]
  return [usage, `${what}${tail}`]
}

/**
 * `api create|update|replace COLLECTION --help`: the fields the collection takes, with their
 * types, choices and defaults, as the server describes them.
 */
export function writeHelp(schema: Schema, command: string, spec: string, version: string): string {
  const { resource } = parseTarget(schema, '', spec)
  const money = version === 'v2'
  const fields = resource.writableFields.map((name) => describe(schema, name, resource.fields[name]!, money))
  const what = {
    create: `Creates ${resource.singular === resource.name ? 'a record' : `a ${resource.singular}`} in ${resource.name}.`,
    update: `Changes the fields given of a record of ${resource.name} (PATCH).`,
    replace: `Replaces a record of ${resource.name} (PUT): fields not given are reset.`,
  }[command]
  const target = command === 'create' || spec.includes('/') ? spec : `${spec} ID`
  const examples = (collectionExamples(schema, version)[command] ?? []).filter((line) =>
    line.startsWith(`api ${command} ${resource.name} `),
  )
  const lines = [
    `Usage: api ${command} ${target} [fields] [options]`,
    '',
    what,
    '',
    'Fields (key=value is text, key:=json any JSON value):',
    ...fields.map(([usage, text]) => row(usage, text)),
    '',
    'Options:',
    row('--data <json>', 'the whole body: JSON, @file.json or @- for standard input'),
    ...(command === 'create'
      ? [row('--idempotency-key <key>', 'Idempotency-Key to send (default: a fresh one)')]
      : [row('--if-match <etag>', 'only if the record still has this ETag')]),
    ...(examples.length > 0 ? ['', 'Examples:', ...examples.map((e) => `  ${e}`)] : []),
  ]
  return `${lines.join('\n')}\n`
}
