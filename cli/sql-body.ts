import { parse } from 'sql-parser-cst'

/** What `api query --sql` needs to know of a SELECT before sending it (the server checks the rest). */
interface SqlShape {
  /** `SELECT a, b`: the answer holds those fields, in that order; false for `SELECT *`. */
  columnList: boolean
  hasLimit: boolean
  hasOffset: boolean
  /** Where the statement ends (before a trailing comment or `;`): a LIMIT clause goes there. */
  end: number
}

type Node = { type: string; range?: [number, number] } & Record<string, unknown>

const isNode = (value: unknown): value is Node =>
  typeof value === 'object' && value !== null && typeof (value as Node).type === 'string'

/**
 * Reads the shape of one SELECT with the SQLite parser the server uses, so that a page size can be
 * added as a real LIMIT clause (never inside a comment or after a `;`). Null when the text is not
 * a single SELECT: it is then sent as it is, and the server says what is wrong with it.
 */
export function sqlShape(text: string): SqlShape | null {
  let program: unknown
  try {
    program = parse(text, {
      dialect: 'sqlite',
      includeRange: true,
      paramTypes: ['?', '?nr', ':name', '@name', '$name'],
    })
  } catch {
    return null
  }
  const statements = isNode(program) && Array.isArray(program.statements) ? program.statements : []
  const real = statements.filter((s) => !(isNode(s) && s.type === 'empty'))
  const statement = real[0]
  if (real.length !== 1 || !isNode(statement) || statement.type !== 'select_stmt' || !statement.range)
    return null
  const clauses = Array.isArray(statement.clauses) ? statement.clauses.filter(isNode) : []
  const select = clauses.find((c) => c.type === 'select_clause')
  const limit = clauses.find((c) => c.type === 'limit_clause')
  const columns = isNode(select?.columns) && Array.isArray(select.columns.items) ? select.columns.items : []
  return {
    columnList: !columns.some((c) => isNode(c) && c.type === 'all_columns'),
    hasLimit: limit !== undefined,
    hasOffset: limit?.offset !== undefined,
    end: statement.range[1],
  }
}

/** The SELECT with `LIMIT n` added at the end of its statement. */
export function withSqlLimit(text: string, shape: SqlShape, limit: number): string {
  return `${text.slice(0, shape.end)} LIMIT ${limit}${text.slice(shape.end)}`
}
