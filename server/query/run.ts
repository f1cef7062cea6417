import type { JSONValue } from 'json-p3'
import { sha256Base64url } from '../../shared/crypto.ts'
import { ApiError, badRequest, invalid } from '../../shared/errors.ts'
import { parseFilteredList, parseSearchParams } from '../../shared/query/search-params.ts'
import type { ShapeParams } from '../../shared/query/shape.ts'
import {
  type Condition,
  DEFAULT_LIMIT,
  DEFAULT_SORT,
  type ListQuery,
  MAX_LIMIT,
} from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Principal } from '../auth/tokens.ts'
import type { EngineContext, ParentRef } from '../resources/context.ts'
import { type ListAnswer, listPage, pageBody } from '../resources/list-page.ts'
import { type Entity, listRecords } from '../resources/reads.ts'
import { overTime } from '../resources/scan.ts'
import { type ApiVersion, changedFields, fromBase, presentationOf, V1 } from '../versions/versions.ts'
import { type ParsedAggregateQuery, parseAggregateBody, runAggregateQuery } from './aggregates.ts'
import { parseFormBody } from './form.ts'
import { parseJsonBody } from './json.ts'
import type { JsonPathPlan } from './jsonpath.ts'
import { MalformedBodyError, type QueryBody, unprocessable } from './media.ts'
import { jsonPathFilter } from './sql-examples.ts'
import type { QueryTarget } from './target.ts'

/** Wall-clock budget of one QUERY's in-memory work, in milliseconds (503 past it). */
export const QUERY_TIME_BUDGET_MS = 2000
/** Most records a JSONPath query may evaluate in memory in one request (docs/query.md). */
const MAX_MEMORY_RECORDS = 1000
/** Most nodes a path evaluated over the whole collection may select. */
const MAX_MEMORY_NODES = 10_000

// The SQL parser (sql-parser-cst, 6.5 MB of JavaScript) and the JSONPath one (json-p3 and re2js)
// load with the first body that needs them: a server never sent one does not hold them
// (docs/performance.md, "Memory").
let sqlParser: Promise<typeof import('./sql.ts')['parseSqlBody']> | undefined
let jsonPathParser: Promise<typeof import('./jsonpath.ts')['parseJsonPathBody']> | undefined
const loadSqlParser = () => {
  sqlParser ??= import('./sql.ts').then((module) => module.parseSqlBody)
  return sqlParser
}
const loadJsonPathParser = () => {
  jsonPathParser ??= import('./jsonpath.ts').then((module) => module.parseJsonPathBody)
  return jsonPathParser
}

/** A QUERY body, parsed and checked, ready to run (and to run again from its stored copy). */
export type ParsedQuery =
  | {
      kind: 'list'
      resource: Resource
      query: ListQuery
      filters?: Record<string, unknown>
      fields?: string[] | null
      /** `fields` and `expand` of a form or JSON body. */
      shape?: ShapeParams
    }
  | { kind: 'search'; params: URLSearchParams }
  | { kind: 'jsonpath'; plan: JsonPathPlan; limit: number }
  | ParsedAggregateQuery

/** Where a stored query continues: the `cursor` or `after` of its `pagination.next`. */
export interface Continuation {
  cursor?: string
  after?: string
}

/**
 * Parses a body by its media type into the internal query. A body that does not match its type
 * is 400; one that is well formed but cannot be run is 422 (RFC 10008 §2), so the 400s the shared
 * parameter parsers raise for GET become 422 here.
 */
export async function parseQuery(
  schema: Schema,
  body: QueryBody,
  target: QueryTarget,
  limit?: number,
): Promise<ParsedQuery> {
  if (target.kind === 'aggregates')
    return unprocessableContent(() => parseAggregateBody(schema, body, target.resource))
  const resource = target.kind === 'collection' ? target.resource : undefined
  switch (body.mediaType) {
    case 'application/sql': {
      const parseSqlBody = await loadSqlParser()
      return unprocessableContent<ParsedQuery>(() => parseSqlBody(schema, body.text, resource))
    }
    case 'application/jsonpath': {
      const parseJsonPathBody = await loadJsonPathParser()
      return unprocessableContent<ParsedQuery>(() => ({
        kind: 'jsonpath',
        plan: parseJsonPathBody(schema, body.text, resource),
        limit: limit ?? DEFAULT_LIMIT,
      }))
    }
    default:
      return unprocessableContent<ParsedQuery>(() => {
        const json = body.mediaType === 'application/json'
        const params = json ? parseJsonBody(body.text) : parseFormBody(body.text)
        if (!resource) return { kind: 'search', params }
        // A JSON body may add the /search expression to a collection's own parameters; a form body
        // is a GET's query string, which takes none, so its `filter` is refused with the unknowns.
        const filter = json ? params.get('filter') : null
        if (json) params.delete('filter')
        const { query, filters, shape } = parseFilteredList(schema, resource, params, filter)
        return { kind: 'list', resource, query, filters, shape }
      })
  }
}

/** Runs a parsed query with the principal's rights; `link` is where `pagination.next` points. */
export async function runQuery(
  engine: EngineContext,
  principal: Principal,
  parsed: ParsedQuery,
  target: QueryTarget,
  link: URL,
  continuation: Continuation = {},
  version: ApiVersion = V1,
): Promise<ListAnswer> {
  const parent = target.kind === 'search' ? undefined : target.parent
  switch (parsed.kind) {
    case 'aggregates':
      return await runAggregateQuery(engine, principal, parsed, { parent, link, version, ...continuation })
    case 'search': {
      const params = new URLSearchParams(parsed.params)
      continueAt(params, continuation)
      const search = parseSearchParams(engine.schema, params)
      const presentation = presentationOf(engine.schema, version)
      return await listPage(engine, principal, { ...search, presentation, link, echoEmptyFilters: true })
    }
    case 'list': {
      const query = { ...parsed.query, page: continuedPage(parsed.query, continuation) }
      const fields = parsed.fields
      // A column list picks fields of the record as this version shows it.
      const select = fields
        ? (records: Entity[]) => records.map((e) => Object.fromEntries(fields.map((f) => [f, e[f]])))
        : undefined
      const { resource, filters, shape } = parsed
      return await listPage(engine, principal, {
        resource,
        query,
        parent,
        presentation: presentationOf(engine.schema, version),
        link,
        filters,
        select,
        shape,
      })
    }
    case 'jsonpath':
      if (continuation.after !== undefined) throw notForJsonPath('after')
      return await runJsonPath(engine, principal, versioned(parsed.plan, version), {
        limit: parsed.limit,
        version,
        link,
        cursor: continuation.cursor,
        parent,
      })
  }
}

/**
 * JSONPath runs on the records as the caller's version shows them. Conditions pushed down to SQL
 * name base columns, so those on fields the version reshapes (v2's `amount` object) are dropped
 * (the SQL keeps a superset) and the filter itself runs on the reshaped record instead.
 */
function versioned(plan: JsonPathPlan, version: ApiVersion): JsonPathPlan {
  const changed = changedFields(version, plan.resource)
  if (changed.size === 0) return plan
  const kept = plan.where.map((c) => withoutFields(c, changed))
  const where = kept.filter((c): c is Condition => c !== undefined)
  const lost = kept.length !== where.length || where.some((c, i) => c !== plan.where[i])
  return { ...plan, where, exact: plan.exact && !lost }
}

/** A condition with the comparisons on `fields` taken out, still keeping every record it kept. */
function withoutFields(condition: Condition, fields: ReadonlySet<string>): Condition | undefined {
  switch (condition.kind) {
    case 'and': {
      const parts = condition.conditions.map((c) => withoutFields(c, fields))
      const kept = parts.filter((c): c is Condition => c !== undefined)
      if (kept.length === 0) return undefined
      const same = kept.length === parts.length && parts.every((c, i) => c === condition.conditions[i])
      return same ? condition : { kind: 'and', conditions: kept }
    }
    case 'or': {
      const parts = condition.conditions.map((c) => withoutFields(c, fields))
      if (parts.some((c) => c === undefined)) return undefined
      const same = parts.every((c, i) => c === condition.conditions[i])
      return same ? condition : { kind: 'or', conditions: parts as Condition[] }
    }
    case 'not':
      // NOT of a dropped (widened) condition would narrow: drop the whole NOT instead.
      return withoutFields(condition.condition, fields) === condition.condition ? condition : undefined
    case 'compare':
      return fields.has(condition.field) ? undefined : condition
  }
}

// json-p3 takes a JSONValue; records are plain JSON (serializeRow), which Entity's type cannot say.
const asJson = (value: Entity | Entity[]) => value as JSONValue

/** Where a JSONPath query's page starts and how it is shown. */
interface JsonPathPage {
  limit: number
  version: ApiVersion
  link: URL
  cursor: string | undefined
  parent: ParentRef | undefined
}

async function runJsonPath(
  engine: EngineContext,
  principal: Principal,
  plan: JsonPathPlan,
  { limit, version, link, cursor, parent }: JsonPathPage,
): Promise<ListAnswer> {
  const deadline = engine.clock() + QUERY_TIME_BUDGET_MS
  if (plan.mode === 'records') {
    const query: ListQuery = {
      where: plan.where,
      sort: DEFAULT_SORT,
      page: { style: 'cursor', limit, cursor },
      includeTotal: false,
    }
    // Each record contributes the nodes the path selects from it.
    const select = (records: Entity[]) =>
      records.flatMap((record) => plan.path.query(asJson([record])).nodes.map((n) => n.value))
    const inMemory = plan.exact
      ? undefined
      : {
          keep: (record: Entity) => plan.recordTest!.query(asJson([record])).length > 0,
          budget: MAX_MEMORY_RECORDS,
          deadline,
          binding: sha256Base64url(plan.text),
        }
    const resource = plan.resource
    const presentation = presentationOf(engine.schema, version)
    return await listPage(engine, principal, {
      resource,
      query,
      parent,
      presentation,
      link,
      select,
      inMemory,
    })
  }
  // The whole collection as one array: bounded in size, then evaluated node by node against the clock.
  const all = await listRecords(
    engine,
    principal,
    plan.resource,
    {
      where: [],
      sort: DEFAULT_SORT,
      page: { style: 'cursor', limit: MAX_MEMORY_RECORDS },
      includeTotal: false,
    },
    parent,
  )
  if (all.pagination.hasMore) {
    throw unprocessable(
      `This JSONPath query reads the whole collection, which holds more than ${MAX_MEMORY_RECORDS} records.`,
      `reads the whole collection (more than ${MAX_MEMORY_RECORDS} records); start the path with a filter, as in $[${jsonPathFilter(plan.resource)}]`,
    )
  }
  const values: unknown[] = []
  const records = all.data.map((entity) => fromBase(engine.schema, version, plan.resource, entity))
  for (const node of plan.path.lazyQuery(asJson(records))) {
    if (engine.clock() > deadline) throw overTime()
    if (node.location.length === 0)
      throw unprocessable(
        'A JSONPath query selects the collection itself.',
        'selects the whole collection ($); select inside it, as in $[*]',
      )
    values.push(node.value)
    if (values.length > MAX_MEMORY_NODES)
      throw unprocessable(
        `A JSONPath query selects more than ${MAX_MEMORY_NODES} nodes.`,
        `selects more than ${MAX_MEMORY_NODES} nodes`,
      )
  }
  const binding = sha256Base64url(
    JSON.stringify([principal.orgId, plan.resource.name, parent?.id ?? null, plan.text]),
  )
  const offset = cursor ? Number(engine.cursors.decode(binding, cursor, 1)[0]) : 0
  const page = values.slice(offset, offset + limit)
  const hasMore = values.length > offset + limit
  const pagination = {
    limit,
    hasMore,
    nextCursor: hasMore ? engine.cursors.encode(binding, [offset + limit]) : null,
  }
  return { body: pageBody(page, pagination, link), lastModified: all.lastModified }
}

/** The page a stored query's GET continues at, from the cursor or after it was given. */
function continuedPage(query: ListQuery, continuation: Continuation): ListQuery['page'] {
  const limit = query.page.limit
  if (continuation.cursor !== undefined) return { style: 'cursor', limit, cursor: continuation.cursor }
  if (continuation.after !== undefined) return { style: 'keyset', limit, after: continuation.after }
  return query.page
}

function continueAt(params: URLSearchParams, continuation: Continuation) {
  for (const [name, value] of Object.entries(continuation)) {
    if (value === undefined) continue
    for (const other of ['cursor', 'after', 'page', 'offset']) params.delete(other)
    params.set(name, value)
  }
}

/** Parses the `limit` a QUERY with a JSONPath body takes in its URL (it has no syntax for one). */
export function jsonPathLimit(url: URL): number | undefined {
  const raw = url.searchParams.get('limit')
  if (raw === null) return undefined
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_LIMIT) {
    throw badRequest('The limit parameter is out of range.', [
      { field: 'limit', message: `must be between 1 and ${MAX_LIMIT}` },
    ])
  }
  return Number(raw)
}

const notForJsonPath = (name: string) =>
  badRequest(`${name} does not apply to a JSONPath query.`, [{ field: name, message: 'use cursor' }])

/** Runs `fn`, reporting a 400 about the body's content as 422 (malformed bodies stay 400). */
function unprocessableContent<T>(fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    throw asUnprocessable(error)
  }
}

/** unprocessableContent for a step that runs the query (and so awaits the store). */
export async function unprocessableWhileRunning<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    throw asUnprocessable(error)
  }
}

function asUnprocessable(error: unknown): unknown {
  if (error instanceof ApiError && error.code === 'BAD_REQUEST' && !(error instanceof MalformedBodyError))
    return invalid(error.message, { details: error.details, headers: error.headers, cause: error })
  return error
}
