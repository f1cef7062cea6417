import { parse } from 'sql-parser-cst'
import {
  camelCase,
  filterableFields,
  type QueryField,
  queryField,
  snakeName,
} from '../../shared/query/fields.ts'
import { MAX_SORT_KEYS } from '../../shared/query/list-params.ts'
import { DEFAULT_SORT, type ListQuery, type SortKey } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { ParsedAggregateQuery } from './aggregates.ts'
import { malformed } from './media.ts'
import { AggregateReader, isAggregateSelect } from './sql-aggregate.ts'
import {
  describe,
  isNode,
  operatorName,
  readLimit,
  type SqlNode,
  sortSpecification,
  sqlProblem,
} from './sql-nodes.ts'
import { scanSql } from './sql-scan.ts'
import { WhereTranslator } from './sql-where.ts'

/**
 * What an `application/sql` body asks for: records (the internal query plus the columns to
 * return), or groups (the aggregate query) when it has GROUP BY, HAVING or an aggregate function.
 */
type SqlQuery =
  | {
      kind: 'list'
      resource: Resource
      query: ListQuery
      /** The select list as JSON field names, in order; null for `*`. */
      fields: string[] | null
    }
  | ParsedAggregateQuery

const CLAUSE_TYPES = [
  'select_clause',
  'from_clause',
  'where_clause',
  'group_by_clause',
  'having_clause',
  'order_by_clause',
  'limit_clause',
]

const CLAUSES: Record<string, string> = {
  with_clause: 'WITH (common table expressions)',
  window_clause: 'WINDOW',
  returning_clause: 'RETURNING',
}

const STATEMENTS: Record<string, string> = {
  compound_select_stmt: 'UNION, INTERSECT and EXCEPT are',
  pragma_stmt: 'PRAGMA is',
  attach_database_stmt: 'ATTACH is',
  detach_database_stmt: 'DETACH is',
}

/**
 * Parses `SELECT cols|* FROM <collection> [WHERE ...] [ORDER BY ...] [LIMIT n [OFFSET m]]` with a
 * real SQLite parser and rebuilds it as the internal query (or, with GROUP BY, HAVING or an
 * aggregate function, as the aggregate query: sql-aggregate.ts): every node of the syntax tree is
 * checked against an allow-list, and the text itself never reaches the database. `fixed` is the
 * collection the request was sent to; without it (/api/v1/search) FROM picks any collection.
 * Text that is not SQL is 400; SQL outside the subset is 422 (docs/query.md).
 */
export function parseSqlBody(schema: Schema, text: string, fixed?: Resource): SqlQuery {
  scanSql(text)
  let program: unknown
  try {
    program = parse(text, {
      dialect: 'sqlite',
      includeRange: true,
      // Parsed so that they can be refused by name rather than as a syntax error.
      paramTypes: ['?', '?nr', ':name', '@name', '$name'],
    })
  } catch (error) {
    const first = error instanceof Error ? error.message.split('\n')[0]! : 'syntax error'
    throw malformed('The SQL query does not parse.', first.slice(0, 200), { cause: error })
  }
  const statements = isNode(program) && Array.isArray(program.statements) ? program.statements : []
  const real = statements.filter((s) => !(isNode(s) && s.type === 'empty'))
  if (real.length === 0) throw malformed('The SQL query does not parse.', 'holds no statement')
  if (real.length > 1) throw sqlProblem(`only one statement is allowed, found ${real.length}`, real[1])
  const statement = real[0]
  if (!isNode(statement) || statement.type !== 'select_stmt') {
    const type = isNode(statement) ? statement.type : '?'
    throw sqlProblem(
      `${
        STATEMENTS[type] ??
        `${type
          .replace(/_stmt$/, '')
          .replace(/_/g, ' ')
          .toUpperCase()} is`
      } not allowed; only SELECT`,
      statement,
    )
  }
  return new SelectReader(schema, fixed).read(statement)
}

class SelectReader {
  private resource?: Resource
  private tableName = ''

  constructor(
    private readonly schema: Schema,
    private readonly fixed?: Resource,
  ) {}

  read(statement: SqlNode): SqlQuery {
    const clauses = Array.isArray(statement.clauses) ? statement.clauses.filter(isNode) : []
    const byType = new Map<string, SqlNode>()
    for (const clause of clauses) {
      if (!CLAUSE_TYPES.includes(clause.type))
        throw sqlProblem(`${CLAUSES[clause.type] ?? clause.type.replace(/_/g, ' ')} is not allowed`, clause)
      byType.set(clause.type, clause)
    }
    const from = byType.get('from_clause')
    if (!from) throw sqlProblem('FROM must name the collection')
    const resource = this.from(from)
    const whereClause = byType.get('where_clause')
    const translator = new WhereTranslator(this.schema, (node) =>
      this.column(node, filterableFields(resource), 'filtered'),
    )
    const where = whereClause ? [translator.condition(whereClause.expr)] : []
    if (isAggregateSelect(byType)) {
      const column = this.column.bind(this)
      const query = new AggregateReader(this.schema, resource, column).read(byType, where)
      // No filter parameters to echo: the conditions are the body's own.
      return { kind: 'aggregates', resource, query, filters: {} }
    }
    const fields = this.columns(byType.get('select_clause')!)
    const query: ListQuery = {
      where,
      sort: this.orderBy(byType.get('order_by_clause')),
      page: readLimit(byType.get('limit_clause')),
      includeTotal: false,
    }
    return { kind: 'list', resource, query, fields }
  }

  private from(clause: SqlNode): Resource {
    const expr = clause.expr
    if (!isNode(expr) || expr.type !== 'identifier' || typeof expr.name !== 'string')
      throw sqlProblem(`FROM takes one collection name; ${fromShape(expr)} is not allowed`, expr)
    const name = expr.name.toLowerCase()
    const found = this.schema.resources.find((r) => r.table === name || r.name === name)
    const resource = this.fixed ? (found === this.fixed ? found : undefined) : found
    if (!resource) {
      const allowed = this.fixed ? this.fixed.table : this.schema.resources.map((r) => r.table).join(', ')
      throw sqlProblem(`unknown table ${expr.name.slice(0, 64)} (allowed: ${allowed})`, expr)
    }
    this.resource = resource
    this.tableName = name
    return resource
  }

  private columns(clause: SqlNode): string[] | null {
    if (Array.isArray(clause.modifiers) && clause.modifiers.length > 0)
      throw sqlProblem(
        `${operatorName((clause.modifiers[0] as SqlNode).distinctKw ?? (clause.modifiers[0] as SqlNode).allKw)} is not allowed`,
        clause.modifiers[0],
      )
    const items = isNode(clause.columns) && Array.isArray(clause.columns.items) ? clause.columns.items : []
    if (items.length === 1 && isNode(items[0]) && items[0].type === 'all_columns') return null
    const resource = this.resource!
    const selectable = ['id', ...resource.presented, 'createdAt', 'updatedAt']
    const fields: string[] = []
    for (const item of items) {
      if (!isNode(item) || (item.type !== 'identifier' && item.type !== 'member_expr'))
        throw sqlProblem(`the select list takes * or column names; ${describe(item)} is not allowed`, item)
      const { field } = this.column(item, selectable, 'selected')
      if (fields.includes(field.name))
        throw sqlProblem(`column ${snakeName(field.name)} is listed twice`, item)
      fields.push(field.name)
    }
    return fields
  }

  /**
   * A JSON field (an event's `data`) or a declared object (its `actor`): no filter or sort may
   * name one, so `queryField` does not know it, but a select list may.
   */
  private jsonField(name: string): QueryField | undefined {
    const resource = this.resource!
    if (Object.hasOwn(resource.objects, name)) return { name, kind: 'json', nullable: true }
    const field = Object.hasOwn(resource.fields, name) ? resource.fields[name] : undefined
    return field?.kind === 'json' ? { name, kind: 'json', nullable: field.nullable } : undefined
  }

  /** A column of the FROM collection, among `allowed` (JSON names); `orders.status` works too. */
  column(node: SqlNode, allowed: string[], use: string): { field: QueryField; written: string } {
    let name = node
    if (node.type === 'member_expr') {
      const table = node.object
      if (
        !isNode(table) ||
        table.type !== 'identifier' ||
        String(table.name).toLowerCase() !== this.tableName
      )
        throw sqlProblem('columns of other tables are not allowed', node)
      if (!isNode(node.property) || node.property.type !== 'identifier')
        throw sqlProblem(`${describe(node.property)} is not a column`, node)
      name = node.property
    }
    const written = String(name.name)
    const candidates = [camelCase(written), camelCase(written.toLowerCase())]
    const match = candidates.find((c) => allowed.includes(c))
    const field =
      match === undefined ? undefined : (queryField(this.resource!, match) ?? this.jsonField(match))
    if (!field || (field.kind === 'json' && use !== 'selected')) {
      const exists = candidates.some((c) =>
        [
          'id',
          'createdAt',
          'updatedAt',
          ...Object.keys(this.resource!.fields),
          ...this.resource!.presented,
        ].includes(c),
      )
      const list = allowed.map(snakeName).join(', ')
      throw sqlProblem(
        exists
          ? `column ${written.slice(0, 64)} cannot be ${use} (allowed: ${list})`
          : `unknown column ${written.slice(0, 64)} (allowed: ${list})`,
        node,
      )
    }
    return { field, written }
  }

  private orderBy(clause?: SqlNode): SortKey[] {
    if (!clause) return DEFAULT_SORT
    const items =
      isNode(clause.specifications) && Array.isArray(clause.specifications.items)
        ? clause.specifications.items
        : []
    if (items.length > MAX_SORT_KEYS)
      throw sqlProblem(`ORDER BY takes at most ${MAX_SORT_KEYS} columns`, clause)
    const sortable = ['id', ...this.resource!.sortable]
    const keys: SortKey[] = []
    for (const entry of items) {
      // `ORDER BY amount` without a direction is the bare column.
      const item = sortSpecification(entry, 'column names')
      if (!isNode(item.expr) || (item.expr.type !== 'identifier' && item.expr.type !== 'member_expr'))
        throw sqlProblem(`ORDER BY takes column names; ${describe(item.expr)} is not allowed`, item.expr)
      const { field } = this.column(item.expr, sortable, 'sorted by')
      if (keys.some((k) => k.field === field.name))
        throw sqlProblem(`ORDER BY names ${snakeName(field.name)} twice`, item)
      const direction = isNode(item.direction) ? item.direction.type : 'sort_direction_asc'
      if (direction !== 'sort_direction_asc' && direction !== 'sort_direction_desc')
        throw sqlProblem('ORDER BY takes ASC or DESC', item.direction)
      keys.push({ field: field.name, descending: direction === 'sort_direction_desc' })
    }
    return keys
  }
}

function fromShape(expr: unknown): string {
  if (!isNode(expr)) return 'this'
  if (expr.type === 'join_expr') return 'a join'
  if (expr.type === 'alias') return 'an alias'
  if (expr.type === 'paren_expr') return 'a subquery'
  if (expr.type === 'member_expr') return 'a schema-qualified name'
  return describe(expr)
}
