/**
 * Reading a schema file (docs/schema.md): JSON, or YAML when its name ends in `.yaml`/`.yml`,
 * checked completely before anything is touched. The answer is the declaration to build the schema
 * from (`schemaFromDeclaration`), or every problem found, one line each naming its place.
 */
import { readFileSync } from 'node:fs'
import type { SchemaDeclaration } from './declaration.ts'
import { declarationProblems } from './file-checks.ts'
import { shapeProblems } from './file-shape.ts'
import { jsonErrorAt } from './json-position.ts'

type SchemaFileResult = { declaration: SchemaDeclaration } | { problems: string[] }

const isYaml = (path: string) => /\.ya?ml$/i.test(path)

/** The text's value, or the parser's reason (with the line and column, for JSON). */
function parse(text: string, yaml: boolean): { value: unknown } | { problem: string } {
  try {
    return { value: yaml ? Bun.YAML.parse(text) : JSON.parse(text) }
  } catch (error) {
    // Bun's parsers say what they met, not where: their errors' line and column are the caller's.
    const reason = (error instanceof Error ? error.message : String(error)).replace(
      /^(JSON|YAML) Parse error: /,
      '',
    )
    const at = yaml ? undefined : jsonErrorAt(text)
    const where = at ? ` at line ${at.line}, column ${at.column}` : ''
    return { problem: `(the file): not valid ${yaml ? 'YAML' : 'JSON'}${where}: ${reason}` }
  }
}

/** Notes for people: `$comment` where the format has structure, and the editor's `$schema`. */
function withoutComments(file: Record<string, unknown>): SchemaDeclaration {
  const strip = <T>(value: T): T => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value
    const { $comment: _, ...rest } = value as Record<string, unknown>
    return rest as T
  }
  const resources = strip(file.resources as SchemaDeclaration['resources'])
  return {
    resources: Object.fromEntries(
      Object.entries(resources).map(([name, r]) => {
        const { fields, actions, parent, ...rest } = strip(r)
        return [
          name,
          {
            ...rest,
            ...(parent ? { parent: strip(parent) } : {}),
            // A field's own keys only: a json field's default may hold a `$comment` of its own.
            fields: Object.fromEntries(Object.entries(strip(fields)).map(([f, d]) => [f, strip(d)])),
            ...(actions
              ? { actions: Object.fromEntries(Object.entries(strip(actions)).map(([a, d]) => [a, strip(d)])) }
              : {}),
          },
        ]
      }),
    ),
  }
}

/** Checks a schema file's text; `yaml` when it is YAML. */
function checkSchemaText(text: string, yaml = false): SchemaFileResult {
  // An editor's byte order mark is no part of the JSON.
  const parsed = parse(text.replace(/^\uFEFF/, ''), yaml)
  if ('problem' in parsed) return { problems: [parsed.problem] }
  const shape = shapeProblems(parsed.value)
  if (shape.length > 0) return { problems: shape }
  const declaration = withoutComments(parsed.value as Record<string, unknown>)
  const problems = declarationProblems(declaration)
  return problems.length > 0 ? { problems } : { declaration }
}

/** Reads and checks the schema file at `path`; a file that cannot be read is a problem too. */
export function readSchemaFile(path: string): SchemaFileResult {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as { code?: string }).code
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'a directory, not a file'
          : (error as Error).message
    return { problems: [`(the file): ${reason}`] }
  }
  return checkSchemaText(text, isYaml(path))
}
