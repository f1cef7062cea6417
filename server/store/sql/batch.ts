import type { Condition } from '../../../shared/query/types.ts'
import type { Resource } from '../../../shared/resources/index.ts'
import { columnOf, selectList, serializeRow } from '../columns.ts'
import { orderBy, whereClause } from '../compile.ts'
import { Params, type SqlValue } from '../dialect.ts'
import type { Executor } from '../executor.ts'
import type { ChildPagesRequest, Entity } from '../types.ts'
import type { Row } from './records.ts'

/**
 * Statements that load related records for many parents at once (GraphQL's `order.user`,
 * `order.lineItems`), so a page of N records costs the same number of statements as a page of one.
 * Each stays parameterized and scoped to one organization.
 */

// SQLite allows 32766 bound parameters; stay far below with the filters' own parameters.
const CHUNK = 500

function chunks<T>(values: T[]): T[][] {
  const out: T[][] = []
  for (let i = 0; i < values.length; i += CHUNK) out.push(values.slice(i, i + CHUNK))
  return out
}

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ')

/** The organization's records among `ids` (one statement per 500 ids); missing ids are left out. */
export async function selectByIds(
  x: Executor,
  resource: Resource,
  orgId: string,
  ids: string[],
  columns?: readonly string[],
): Promise<Entity[]> {
  const entities: Entity[] = []
  const list = selectList(resource, columns)
  for (const part of chunks(ids)) {
    const sql = `SELECT ${list} FROM ${resource.table} WHERE org_id = ? AND id IN (${placeholders(part.length)})`
    for (const row of (await x.all(sql, [orgId, ...part])) as Row[])
      entities.push(serializeRow(resource, row))
  }
  return entities
}

/**
 * The first `limit` children of each parent in `parentIds`, in the order of `sort` (ties by id),
 * in one statement: a window function numbers each parent's children. The subquery is named
 * (`pages`): PostgreSQL before 16 requires it.
 */
export async function selectChildPages(
  x: Executor,
  child: Resource,
  orgId: string,
  parentIds: string[],
  request: ChildPagesRequest,
): Promise<Entity[]> {
  const parent = columnOf(child.parent!.field)
  const order = orderBy(child, request.sort)
  const entities: Entity[] = []
  const list = selectList(child, request.columns, [child.parent!.field, ...request.sort.map((k) => k.field)])
  for (const part of chunks(parentIds)) {
    const params = new Params(x.dialect)
    const where = whereClause(child, orgId, request.where, request.search, params)
    const sql =
      `SELECT * FROM (SELECT ${list}, row_number() OVER (PARTITION BY ${parent} ORDER BY ${order.text}) AS page_rank ` +
      // PostgreSQL before 16 requires the subquery's alias.
      `FROM ${child.table} WHERE ${where} AND ${x.dialect.oneOf(parent, part, params)}) AS pages ` +
      `WHERE page_rank <= ${params.add(request.limit)} ORDER BY page_rank`
    for (const row of (await x.all(sql, [...(params.values as SqlValue[])])) as Row[])
      entities.push(serializeRow(child, row))
  }
  return entities
}

/** How many children of each parent match the conditions, in one statement. */
export async function countChildren(
  x: Executor,
  child: Resource,
  orgId: string,
  parentIds: string[],
  where: Condition[],
  search?: string,
): Promise<Map<string, number>> {
  const parent = columnOf(child.parent!.field)
  const counts = new Map<string, number>()
  for (const part of chunks(parentIds)) {
    const params = new Params(x.dialect)
    const clause = whereClause(child, orgId, where, search, params)
    const sql =
      `SELECT ${parent} AS parent, count(*) AS n FROM ${child.table} ` +
      `WHERE ${clause} AND ${x.dialect.oneOf(parent, part, params)} GROUP BY ${parent}`
    for (const row of (await x.all(sql, [...(params.values as SqlValue[])])) as {
      parent: string
      n: number
    }[])
      counts.set(row.parent, Number(row.n))
  }
  return counts
}
