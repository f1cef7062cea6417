import { sha256 } from '@oslojs/crypto/sha2'
import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { ApiError, badRequest } from '../../shared/errors.ts'
import { parseFilterExpression } from '../../shared/query/filter-expression.ts'
import { parseListParams } from '../../shared/query/list-params.ts'
import {
  type Condition,
  DEFAULT_LIMIT,
  DEFAULT_SORT,
  type ListQuery,
  MAX_LIMIT,
} from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Principal } from '../auth/tokens.ts'
import type { EngineContext, ParentRef } from '../resources/context.ts'
import { type Entity, listRecords } from '../resources/reads.ts'
import { overTime, scanRecords } from '../resources/scan.ts'
import { withNext } from '../rest/handler.ts'
import { searchBody } from '../rest/search.ts'
import { type ApiVersion, changedFields, fromBase, V1 } from '../versions/versions.ts'
import { parseFormBody } from './form.ts'
import { parseJsonBody } from './json.ts'
import { type JsonPathPlan, MAX_MEMORY_NODES, MAX_MEMORY_RECORDS, parseJsonPathBody } from './jsonpath.ts'
import { MalformedBodyError, type QueryBody, unprocessable } from './media.ts'
import { parseSqlBody } from './sql.ts'
import type { QueryTarget } from './target.ts'

/** Wall-clock budget of one QUERY's in-memory work, in milliseconds (503 past it). */
export const QUERY_TIME_BUDGET_MS = 2000

/** A QUERY body, parsed and checked, ready to run (and to run again from its stored copy). */
export type ParsedQuery =
  | {
      kind: 'list'
      resource: Resource
      query: ListQuery
      filters?: Record<string, unknown>
      fields?: string[] | null
    }
  | { kind: 'search'; params: URLSearchParams }
  | { kind: 'jsonpath'; plan: JsonPathPlan; limit: number }

/** Where a stored query continues: the `cursor` or `after` of its `pagination.next`. */
export interface Continuation {
  cursor?: string
  after?: string
}

export interface QueryOutcome {
  body: Record<string, unknown>
  lastModified: string
}

/**
 * Parses a body by its media type into the internal query. A body that does not match its type
 * is 400; one that is well formed but cannot be run is 422 (RFC 10008 §2), so the 400s the shared
 * parameter parsers raise for GET become 422 here.
 */
export function parseQuery(body: QueryBody, target: QueryTarget, limit?: number): ParsedQuery {
  return unprocessableContent(() => {
    const resource = target.kind === 'collection' ? target.resource : undefined
    switch (body.mediaType) {
      case 'application/sql': {
        const sql = parseSqlBody(body.text, resource)
        return { kind: 'list', resource: sql.resource, query: sql.query, fields: sql.fields }
      }
      case 'application/jsonpath':
        return {
          kind: 'jsonpath',
          plan: parseJsonPathBody(body.text, resource),
          limit: limit ?? DEFAULT_LIMIT,
        }
      default: {
        const json = body.mediaType === 'application/json'
        const params = json ? parseJsonBody(body.text) : parseFormBody(body.text)
        if (!resource) return { kind: 'search', params }
        // A JSON body may add the /search expression to a collection's own parameters.
        const filter = json ? params.get('filter') : null
        params.delete('filter')
        const { query, filters } = parseListParams(resource, params)
        if (filter !== null) {
          query.where.push(parseFilterExpression(resource, filter))
          ;(filters as Record<string, unknown>).filter = filter
        }
        return { kind: 'list', resource, query, filters }
      }
    }
  })
}

/** Runs a parsed query with the principal's rights; `link` is where `pagination.next` points. */
export function runQuery(
  engine: EngineContext,
  principal: Principal,
  parsed: ParsedQuery,
  target: QueryTarget,
  link: URL,
  continuation: Continuation = {},
  version: ApiVersion = V1,
): QueryOutcome {
  const parent = target.kind === 'collection' ? target.parent : undefined
  switch (parsed.kind) {
    case 'search': {
      const params = new URLSearchParams(parsed.params)
      continueAt(params, continuation)
      return searchBody(engine, principal, params, link, version)
    }
    case 'list': {
      const query = { ...parsed.query, page: continuedPage(parsed.query, continuation) }
      const result = listRecords(engine, principal, parsed.resource, query, parent)
      const fields = parsed.fields
      // A column list picks fields of the record as this version shows it.
      const records = result.data.map((e) => fromBase(version, parsed.resource, e))
      const data = fields ? records.map((e) => Object.fromEntries(fields.map((f) => [f, e[f]]))) : records
      const body: Record<string, unknown> = { data, pagination: withNext(link, result.pagination) }
      if (parsed.filters && Object.keys(parsed.filters).length > 0) body.filters = parsed.filters
      return { body, lastModified: result.lastModified }
    }
    case 'jsonpath':
      if (continuation.after !== undefined) throw notForJsonPath('after')
      return runJsonPath(
        engine,
        principal,
        versioned(parsed.plan, parsed.limit, version),
        link,
        continuation.cursor,
        parent,
      )
  }
}

/** A JSONPath plan with the version's record shape: what JSONPath sees and what it selects. */
interface VersionedPlan extends JsonPathPlan {
  limit: number
  represent: (entity: Entity) => Entity
}

/**
 * JSONPath runs on the records as the caller's version shows them. Conditions pushed down to SQL
 * name base columns, so those on fields the version reshapes (v2's `amount` object) are dropped
 * (the SQL keeps a superset) and the filter itself runs on the reshaped record instead.
 */
function versioned(plan: JsonPathPlan, limit: number, version: ApiVersion): VersionedPlan {
  const changed = changedFields(version, plan.resource)
  const represent = (entity: Entity) => fromBase(version, plan.resource, entity)
  if (changed.size === 0) return { ...plan, limit, represent }
  const kept = plan.where.map((c) => withoutFields(c, changed))
  const where = kept.filter((c): c is Condition => c !== undefined)
  const lost = kept.length !== where.length || where.some((c, i) => c !== plan.where[i])
  return { ...plan, where, exact: plan.exact && !lost, limit, represent }
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

function runJsonPath(
  engine: EngineContext,
  principal: Principal,
  plan: VersionedPlan,
  link: URL,
  cursor: string | undefined,
  parent?: ParentRef,
): QueryOutcome {
  const { limit, represent } = plan
  const deadline = engine.clock() + QUERY_TIME_BUDGET_MS
  const nodesOf = (entity: Entity) => plan.path.query([represent(entity)] as never).nodes.map((n) => n.value)
  if (plan.mode === 'records') {
    const result = plan.exact
      ? listRecords(
          engine,
          principal,
          plan.resource,
          {
            where: plan.where,
            sort: DEFAULT_SORT,
            page: { style: 'cursor', limit, cursor },
            includeTotal: false,
          },
          parent,
        )
      : scanRecords(
          engine,
          principal,
          plan.resource,
          {
            where: plan.where,
            sort: DEFAULT_SORT,
            limit,
            cursor,
            keep: (entity) => plan.recordTest!.query([represent(entity)] as never).length > 0,
            budget: MAX_MEMORY_RECORDS,
            deadline,
            binding: hash(plan.text),
          },
          parent,
        )
    const data = result.data.flatMap(nodesOf)
    return {
      body: { data, pagination: withNext(link, result.pagination) },
      lastModified: result.lastModified,
    }
  }
  // The whole collection as one array: bounded in size, then evaluated node by node against the clock.
  const all = listRecords(
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
      `reads the whole collection (more than ${MAX_MEMORY_RECORDS} records); start the path with a filter, as in $[?@.status == 'paid']`,
    )
  }
  const values: unknown[] = []
  for (const node of plan.path.lazyQuery(all.data.map(represent) as never)) {
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
  const binding = hash(JSON.stringify([principal.orgId, plan.resource.name, parent?.id ?? null, plan.text]))
  const offset = cursor ? Number(engine.cursors.decode(binding, cursor, 1)[0]) : 0
  const page = values.slice(offset, offset + limit)
  const hasMore = values.length > offset + limit
  const pagination = {
    limit,
    hasMore,
    nextCursor: hasMore ? engine.cursors.encode(binding, [offset + limit]) : null,
  }
  return { body: { data: page, pagination: withNext(link, pagination) }, lastModified: all.lastModified }
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

const hash = (text: string) => encodeBase64urlNoPadding(sha256(new TextEncoder().encode(text)))

/** Runs `fn`, reporting a 400 about the body's content as 422 (malformed bodies stay 400). */
export function unprocessableContent<T>(fn: () => T): T {
  try {
    return fn()
  } catch (error) {
    if (error instanceof ApiError && error.code === 'BAD_REQUEST' && !(error instanceof MalformedBodyError))
      throw Object.assign(new ApiError('VALIDATION_ERROR', error.message, error.details, error.headers), {
        cause: error,
      })
    throw error
  }
}
