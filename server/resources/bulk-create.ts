import { ApiError, conflict, type ErrorDetail, invalid } from '../../shared/errors.ts'
import { newId } from '../../shared/ids.ts'
import { events } from '../../shared/resources/events.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { isoNow } from '../../shared/time.ts'
import type { Principal } from '../auth/tokens.ts'
import { type NewEvent, type NewRecord, UniqueTakenError } from '../store/types.ts'
import { loadParent } from './access.ts'
import type { EngineContext, ParentRef } from './context.ts'
import { actorOf } from './events.ts'
import type { PreparedWrite } from './prepared-write.ts'
import type { Entity } from './reads.ts'
import { authorizeWrite, createValues } from './writes.ts'

/** Most records one request creates (contract, "Bulk and summary"). */
export const MAX_BULK_RECORDS = 1000
/** Rows whose problems one error lists; the rest would only repeat them. */
const MAX_FAILING_ROWS = 20

/** `rows[12].pages`: where a detail of row `index` (counted from 0) points. */
export const rowField = (index: number, field: string) => `rows[${index}].${field}`

/** An error of one row with each detail naming the row; the message says nothing was written. */
function inRow(index: number, error: ApiError): ApiError {
  const details = error.details.map((d) => ({ field: rowField(index, d.field), message: d.message }))
  // new ApiError: the row's own error, of its code, its details prefixed by the row.
  return new ApiError(error.code, `Row ${index}: ${error.message} Nothing was written.`, {
    details: details.length > 0 ? details : [{ field: `rows[${index}]`, message: error.message }],
    cause: error,
  })
}

/**
 * Each body validated as a single create's (`createValues`): the values of every row, or the
 * error of the first failing rows. A 422 lists the details of up to MAX_FAILING_ROWS rows; any
 * other refusal (403 for a privileged field) is the first failing row's alone.
 */
function validateRows(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  bodies: readonly unknown[],
): Record<string, unknown>[] {
  const values: Record<string, unknown>[] = []
  const details: ErrorDetail[] = []
  let failing = 0
  for (const [index, body] of bodies.entries()) {
    try {
      values.push(createValues(ctx, principal, resource, body))
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      const named = inRow(index, error)
      if (error.code !== 'VALIDATION_ERROR') throw named
      details.push(...named.details)
      if (++failing === MAX_FAILING_ROWS) break
    }
  }
  if (details.length > 0) throw rowsInvalid(details, failing)
  return values
}

function rowsInvalid(details: ErrorDetail[], failing: number): ApiError {
  return invalid(
    `${failing === 1 ? 'A row is' : `${failing} rows are`} not valid; nothing was written.`,
    details,
  )
}

/** Referenced records must exist in the organization: one statement per referenced collection. */
async function checkReferences(
  tx: EngineContext,
  resource: Resource,
  orgId: string,
  rows: Record<string, unknown>[],
): Promise<void> {
  const details: ErrorDetail[] = []
  for (const [name, field] of Object.entries(resource.fields)) {
    if (!field.references || resource.parent?.field === name) continue
    const ids = new Set<string>()
    for (const row of rows) if (typeof row[name] === 'string') ids.add(row[name] as string)
    if (ids.size === 0) continue
    const target = tx.schema.byName(field.references)!
    const found = new Set(
      (await tx.store.records.byIds(target, orgId, [...ids], ['id'])).map((e) => e.id as string),
    )
    for (const [index, row] of rows.entries()) {
      const id = row[name]
      if (typeof id !== 'string' || found.has(id)) continue
      details.push({ field: rowField(index, name), message: `no ${target.singular} with id ${id}` })
      if (details.length === MAX_FAILING_ROWS) break
    }
  }
  if (details.length > 0) throw rowsInvalid(details, new Set(details.map((d) => d.field.split('.')[0])).size)
}

function taken(resource: Resource, index: number, name: string, message: string): ApiError {
  return conflict(
    `Row ${index}: another ${resource.singular} already has this ${name}. Nothing was written.`,
    {
      details: [{ field: rowField(index, name), message }],
    },
  )
}

/** Unique values must be free: among the rows themselves (the later row is named) and in the table. */
async function checkUnique(
  tx: EngineContext,
  resource: Resource,
  orgId: string,
  rows: Record<string, unknown>[],
): Promise<void> {
  for (const [name, field] of Object.entries(resource.fields)) {
    if (!field.unique) continue
    const first = new Map<unknown, number>()
    for (const [index, row] of rows.entries()) {
      const key = row[name]
      if (key === null || key === undefined) continue
      const earlier = first.get(key)
      if (earlier !== undefined)
        throw taken(resource, index, name, `has the same value as rows[${earlier}].${name}`)
      first.set(key, index)
    }
    if (first.size === 0) continue
    const held = await tx.store.records.takenValues(resource, orgId, name, [...first.keys()])
    for (const [key, index] of first)
      if (held.has(key)) throw taken(resource, index, name, 'is already taken in this organization')
  }
}

/**
 * A create of many records in one transaction (a CSV or NDJSON POST), first phase: authorization
 * once, then every body validated, defaulted and checked exactly as a single create's
 * (`createValues`), each error naming its row (`rows[12].pages`). `apply` loads the parent, checks
 * references with one statement per referenced collection and unique values with one per unique
 * field, inserts the records and their `created` events in input order with multi-row statements,
 * and returns the records in input order. Resources with hooks (whose creates do more than this)
 * are refused by the front door before this runs.
 */
export function prepareBulkCreate(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  bodies: readonly unknown[],
  parent?: ParentRef,
): PreparedWrite<Entity[]> {
  authorizeWrite(principal, resource)
  const values = validateRows(ctx, principal, resource, bodies)
  return {
    check: async () => {},
    apply: async (tx) => {
      if (parent) {
        await loadParent(tx, principal, resource, parent)
        for (const row of values) row[resource.parent!.field] = parent.id
      }
      await checkReferences(tx, resource, principal.orgId, values)
      await checkUnique(tx, resource, principal.orgId, values)
      const now = isoNow(tx.clock())
      const at = tx.clock()
      const records: NewRecord[] = values.map((row) => ({
        id: newId(resource.prefix, at),
        orgId: principal.orgId,
        values: row,
        now,
      }))
      let entities: Entity[]
      try {
        entities = await tx.store.records.insertMany(resource, records)
      } catch (error) {
        // A concurrent write took a unique value after the check: the same 409, without a row.
        if (error instanceof UniqueTakenError)
          throw conflict(`Another ${resource.singular} already has this ${error.field}.`, {
            details: [{ field: `rows.${error.field}`, message: 'is already taken in this organization' }],
            cause: error,
          })
        throw error
      }
      const actor = actorOf(principal)
      const requestId = tx.requestId?.() ?? null
      const type = `${resource.eventName}.created`
      await tx.store.events.appendMany(
        entities.map(
          (entity): NewEvent => ({
            id: newId(events.prefix, at),
            orgId: principal.orgId,
            now,
            type,
            resource: resource.name,
            resourceId: entity.id,
            data: entity,
            actor,
            requestId,
          }),
        ),
      )
      return entities
    },
  }
}
