import type { Condition } from '../../shared/query/types.ts'
import { events } from '../../shared/resources/events.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import type { Entity } from '../store/types.ts'
import type { EngineContext } from './context.ts'

/**
 * Who sees which events. An event carries a copy of a record (`data`), so `read:events` alone
 * would read every collection through the log: an event is visible only to a principal that may
 * also read the collection it is about (`read:{resource}`). Every read of the log in the engine
 * goes through here, so REST, QUERY, /search, GraphQL and the subscription agree.
 */

const logged = new WeakMap<Schema, readonly Resource[]>()

/** The collections whose events the log can hold: every one a client can change. */
function loggedOf(schema: Schema): readonly Resource[] {
  let found = logged.get(schema)
  if (!found) {
    found = schema.resources.filter((r) => r.writable)
    logged.set(schema, found)
  }
  return found
}

const isEventLog = (resource: Resource) => resource.name === events.name

/** The collections whose events the principal may see, or null when it may read them all. */
export function visibleCollections(schema: Schema, principal: Principal): string[] | null {
  const all = loggedOf(schema)
  const readable = all.filter((r) => principal.scopes.has(r.scopes.read))
  return readable.length === all.length ? null : readable.map((r) => r.name)
}

/**
 * The conditions a read of `resource` adds to the client's `where` for this principal:
 * `resource IN (readable collections)` on the event log (none when it may read every collection,
 * so a full token keeps the plain index range), nothing elsewhere. Applied in SQL, so pages, totals
 * and cursors count only what the principal sees. A filter that names a collection the principal
 * may not read (`resource=users`, `WHERE resource IN ('users')`) is 403 naming `read:users`
 * rather than an empty page that hides why.
 */
export function visibilityConditions(
  schema: Schema,
  principal: Principal,
  resource: Resource,
  where: Condition[],
): Condition[] {
  if (!isEventLog(resource)) return []
  for (const name of namedCollections(where)) {
    const named = schema.byName(name)
    if (named && named !== resource) requireScope(principal, named.scopes.read)
  }
  const visible = visibleCollections(schema, principal)
  return visible === null ? [] : [{ kind: 'compare', field: 'resource', op: 'in', value: visible }]
}

/** Collections an explicit top-level `resource = x` or `resource IN (...)` names. */
function namedCollections(where: Condition[]): string[] {
  const names: string[] = []
  const visit = (condition: Condition) => {
    if (condition.kind === 'and') condition.conditions.forEach(visit)
    if (condition.kind !== 'compare' || condition.field !== 'resource' || condition.fn !== undefined) return
    if (condition.op === 'eq' && typeof condition.value === 'string') names.push(condition.value)
    if (condition.op === 'in' && Array.isArray(condition.value))
      for (const v of condition.value) if (typeof v === 'string') names.push(v)
  }
  where.forEach(visit)
  return names
}

/** The fields `isVisible` reads of a record of `resource` (an event's `resource`). */
export function visibilityFields(resource: Resource): string[] {
  return isEventLog(resource) ? ['resource'] : []
}

/** The read scope a record of `resource` needs beyond the collection's own, if any. */
function extraScope(schema: Schema, resource: Resource, entity: Entity): string | null {
  if (!isEventLog(resource)) return null
  const name = String(entity.resource)
  return schema.byName(name)?.scopes.read ?? `read:${name}`
}

/** Whether the principal may see this record of `resource` (already of its organization). */
export function isVisible(schema: Schema, principal: Principal, resource: Resource, entity: Entity): boolean {
  const scope = extraScope(schema, resource, entity)
  return scope === null || principal.scopes.has(scope)
}

/** 403 `insufficient_scope` naming `read:{resource}`, as a GET of that record itself would answer. */
export function requireVisible(
  schema: Schema,
  principal: Principal,
  resource: Resource,
  entity: Entity,
): void {
  const scope = extraScope(schema, resource, entity)
  if (scope !== null) requireScope(principal, scope)
}

/**
 * 403 unless the principal may see every record `resource` can hold. A stored QUERY result is the
 * exact answer its maker saw; on the event log that may include any collection the maker could read.
 */
export function requireWholeView(schema: Schema, principal: Principal, resource: Resource): void {
  if (isEventLog(resource)) for (const logged of loggedOf(schema)) requireScope(principal, logged.scopes.read)
}

/**
 * The last change to what this principal sees of `resource` in its organization (Last-Modified),
 * or null if none. For the event log: the newest event of a readable collection, which is the last
 * change to that collection; the time of an event the principal may not see stays hidden.
 */
export async function lastVisibleChange(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
): Promise<string | null> {
  if (!isEventLog(resource)) return await ctx.store.records.lastChange(principal.orgId, resource.name)
  const names = visibleCollections(ctx.schema, principal) ?? loggedOf(ctx.schema).map((r) => r.name)
  let last: string | null = null
  for (const name of names) {
    const at = await ctx.store.records.lastChange(principal.orgId, name)
    if (at !== null && (last === null || at > last)) last = at
  }
  return last
}
