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
}

/** `init [FILE]` and `schema print|json-schema`. */
export function registerSchemaCommands(cli: CAC, { io, schema }: SchemaContext): void {
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

  /** The schema command's actions; `plan` and `apply` join them with the schema changes. */
  const actions: Record<string, () => void> = {
    print: () => io.out(pretty({ $schema: `./${JSON_SCHEMA_FILE}`, ...declarationOf(schema()) }).trimEnd()),
    'json-schema': () => io.out(pretty(schemaFileJsonSchema()).trimEnd()),
  }
  cli
    .command('schema <action>', 'The schema in force: schema print, schema json-schema')
    .action((action: string) => {
      const run = actions[action]
      if (!run) throw new UsageError(unknownAction('schema', action))
      run()
    })
}
