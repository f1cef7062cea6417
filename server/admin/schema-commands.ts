/**
 * The schema file's operator commands (docs/schema.md): `init` writes a starter, `schema print`
 * the schema in force, `schema json-schema` the JSON Schema editors check schema files with.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { CAC } from 'cac'
import { declarationOf } from '../../shared/schema/declaration.ts'
import { readSchemaFile } from '../../shared/schema/file.ts'
import { schemaFileJsonSchema } from '../../shared/schema/file-shape.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { applySchema, planSchema } from '../schema/apply.ts'
import type { SchemaChange } from '../schema/change.ts'
import { UsageError } from './arguments.ts'
import { unknownAction } from './command-line.ts'
import starter from './starter.schema.json' with { type: 'json' }

/** Where editors find the JSON Schema: beside the schema file, as `init` writes it. */
const JSON_SCHEMA_FILE = 'api-schema.schema.json'

const DEFAULT_FILE = 'api.schema.json'

/** A schema file with problems: each is a line on standard error, and the command exits 2. */
export class SchemaFileError extends Error {
  override name = 'SchemaFileError'
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`)
  }
}

/** The declaration in `file`, checked completely; throws a SchemaFileError listing every problem. */
export function checkedDeclaration(file: string) {
  const result = readSchemaFile(file)
  if ('problems' in result) throw new SchemaFileError(file, result.problems)
  return result.declaration
}

const pretty = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

interface SchemaContext {
  io: { out: (line: string) => void }
  /** The schema in force (`--schema FILE` or the built-in example), read when first asked. */
  schema: () => Schema
  /** The database a command's `--db`/`API_DB` names. */
  dbOf: (options: Record<string, unknown>) => string
}

/** A change as `schema plan` prints it: what it does, whether it is applied at start, its SQL. */
function describeChange(change: SchemaChange): string[] {
  const kind = change.destructive ? 'destructive' : 'safe'
  return [
    `${kind.padEnd(11)} ${change.description}`,
    ...change.statements.flatMap((statement) => statement.split('\n').map((line) => `    ${line}`)),
  ]
}

/** `schema plan`: every pending change and its SQL, applying none. */
async function plan(io: SchemaContext['io'], location: string, schema: Schema, json: boolean) {
  const { changes } = await planSchema(location, schema)
  if (json) {
    const listed = changes.map(({ description, destructive, statements }) => ({
      description,
      destructive,
      statements,
    }))
    return io.out(JSON.stringify({ changes: listed }))
  }
  if (changes.length === 0) return io.out('The database follows the schema: nothing to change.')
  for (const change of changes) for (const line of describeChange(change)) io.out(line)
  const destructive = changes.filter((c) => c.destructive).length
  io.out(
    destructive === 0
      ? `${changes.length} change(s), all safe: the next start applies them (or api-server schema apply).`
      : `${changes.length} change(s), ${destructive} destructive: apply them with api-server schema apply --allow-destructive.`,
  )
}

/** `schema apply [--allow-destructive]`: the pending changes in one transaction, recorded. */
async function apply(
  io: SchemaContext['io'],
  location: string,
  schema: Schema,
  options: { json: boolean; allowDestructive: boolean },
) {
  const { changes } = await applySchema(location, schema, { allowDestructive: options.allowDestructive })
  if (options.json)
    return io.out(
      JSON.stringify({
        applied: changes.map((c) => ({ description: c.description, destructive: c.destructive })),
      }),
    )
  if (changes.length === 0) return io.out('The database follows the schema: nothing to change.')
  for (const change of changes) io.out(`applied ${change.description}`)
}

/** `init [FILE]` and `schema print|json-schema|plan|apply`. */
export function registerSchemaCommands(cli: CAC, { io, schema, dbOf }: SchemaContext): void {
  cli
    .command(
      'init [file]',
      `Write a commented starter schema file (default ./${DEFAULT_FILE}) and its JSON Schema beside it`,
    )
    .action((file: string | undefined) => {
      const path = file === undefined || file === '' ? DEFAULT_FILE : String(file)
      if (/\.ya?ml$/i.test(path))
        throw new UsageError(
          'init writes JSON: name the file .json (a schema file may be YAML, but the starter is JSON)',
        )
      if (existsSync(path))
        throw new Error(`${path} exists; init never overwrites a file (give another name)`)
      // The JSON Schema is generated: written anew beside the starter so the `$schema` it names is current.
      const jsonSchema = join(dirname(path), JSON_SCHEMA_FILE)
      try {
        writeFileSync(path, pretty(starter), { flag: 'wx' })
        writeFileSync(jsonSchema, pretty(schemaFileJsonSchema()))
      } catch (error) {
        throw new Error(`cannot write ${path}: ${(error as Error).message}`)
      }
      io.out(`Wrote ${path} (a library: authors, books with an action, chapters nested under books)`)
      io.out(`and ${jsonSchema}, which editors check it with.`)
      io.out('Next: edit it, then run')
      io.out(`  api-server serve --schema ${path}`)
    })

  const actions: Record<string, (options: Record<string, unknown>) => void | Promise<void>> = {
    print: () => io.out(pretty({ $schema: `./${JSON_SCHEMA_FILE}`, ...declarationOf(schema()) }).trimEnd()),
    'json-schema': () => io.out(pretty(schemaFileJsonSchema()).trimEnd()),
    plan: (options) => plan(io, dbOf(options), schema(), Boolean(options.json)),
    apply: (options) =>
      apply(io, dbOf(options), schema(), {
        json: Boolean(options.json),
        allowDestructive: Boolean(options.allowDestructive),
      }),
  }
  cli
    .command(
      'schema <action>',
      'The schema in force: schema print, json-schema, plan (pending changes and their SQL), apply [--allow-destructive]',
    )
    .option('--allow-destructive', 'schema apply: apply changes that may lose or reject stored data too')
    .action(async (action: string, options: Record<string, unknown>) => {
      const run = actions[action]
      if (!run) throw new UsageError(unknownAction('schema', action))
      if (options.allowDestructive && action !== 'apply')
        throw new UsageError('--allow-destructive goes with schema apply')
      await run(options)
    })
}
