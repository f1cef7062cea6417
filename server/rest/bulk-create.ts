import { ApiError, badRequest, type ErrorDetail, invalid, unsupportedMediaType } from '../../shared/errors.ts'
import { rejectUnknownParams } from '../../shared/query/pagination.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Principal } from '../auth/tokens.ts'
import { JSON_TYPE } from '../http/responses.ts'
import { prepareBulkCreate } from '../resources/bulk-create.ts'
import type { EngineContext, ParentRef } from '../resources/context.ts'
import { runIdempotent } from '../resources/idempotency.ts'
import { type ApiVersion, errorInVersion, toBase } from '../versions/versions.ts'
import { type BulkType, csvBodies, ndjsonBodies } from './bulk-body.ts'
import { idempotencyKeyOf, idempotentResponse } from './idempotency.ts'

/** The one query parameter of a bulk create: `validate_only=true` checks everything, writes nothing. */
const BULK_PARAMS = new Set(['validate_only'])

function validateOnly(url: URL): boolean {
  rejectUnknownParams(url.searchParams, BULK_PARAMS)
  const given = url.searchParams.get('validate_only')
  if (given === null || given === 'false') return false
  if (given === 'true') return true
  throw badRequest('validate_only is true or false.', [
    { field: 'validate_only', message: 'must be true or false' },
  ])
}

const ROW_DETAIL = /^rows\[(\d+)\]\.(.+)$/s

/**
 * An error whose details name rows (`rows[3].currency`) with each row's fields in the version's
 * words (v2's `rows[3].amount.currency`), as a single create's error speaks of its body.
 */
function inVersionRows(version: ApiVersion, resource: Resource, bodies: unknown[], error: unknown): unknown {
  if (!(error instanceof ApiError) || version.changes.length === 0) return error
  const details: ErrorDetail[] = []
  for (const detail of error.details) {
    const match = ROW_DETAIL.exec(detail.field)
    const body = match ? bodies[Number(match[1])] : undefined
    if (!match || body === undefined) {
      details.push(detail)
      continue
    }
    // new ApiError: a carrier for one detail, translated as a single create's would be.
    const one = new ApiError(error.code, error.message, {
      details: [{ field: match[2]!, message: detail.message }],
    })
    const translated = errorInVersion(version, resource, body, one) as ApiError
    for (const d of translated.details)
      details.push({ field: `rows[${match[1]}].${d.field}`, message: d.message })
  }
  // new ApiError: the same error with its details in the version's words.
  return new ApiError(error.code, error.message, { details, headers: error.headers, cause: error })
}

/** Each row in the base shape the engine validates; a row's shape errors name the row. */
function baseBodies(version: ApiVersion, resource: Resource, bodies: unknown[]): unknown[] {
  const details: ErrorDetail[] = []
  const out = bodies.map((body, index) => {
    try {
      return toBase(version, resource, body)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      for (const d of error.details) details.push({ field: `rows[${index}].${d.field}`, message: d.message })
      return body
    }
  })
  if (details.length > 0) throw invalid('Some rows are not valid; nothing was written.', details.slice(0, 20))
  return out
}

/** Thrown to roll back a `validate_only` create once everything in it has been checked. */
class RolledBack extends Error {}

interface BulkRequest {
  request: Request
  url: URL
  principal: Principal
  type: BulkType
  parent?: ParentRef
}

/**
 * `POST /{collection}` with a `text/csv` or `application/x-ndjson` body: up to 1,000 records
 * created in one transaction (docs/bulk.md, "CSV and NDJSON in"). 201 with `{"data": [{"id"}...]}`
 * in input order, replayed for a repeated `Idempotency-Key`; with `validate_only=true`, 200 with
 * `{"data": [], "validated": N}` after every check ran in a transaction rolled back.
 */
export async function bulkCreate(
  engine: EngineContext,
  version: ApiVersion,
  resource: Resource,
  { request, url, principal, type, parent }: BulkRequest,
): Promise<Response> {
  const dryRun = validateOnly(url)
  if (engine.hooks?.get(resource.name) || Object.keys(resource.revealed).length > 0)
    throw unsupportedMediaType(`${resource.name} are created one at a time, from application/json.`, [
      { field: 'Content-Type', message: 'must be application/json for this collection' },
    ])
  const text = await request.text()
  const given = type === 'text/csv' ? csvBodies(text, version, resource) : ndjsonBodies(text)
  const bodies = baseBodies(version, resource, given)
  try {
    const write = prepareBulkCreate(engine, principal, resource, bodies, parent)
    if (dryRun) {
      const validated = await engine.store
        .transaction(async (tx) => {
          const entities = await write.apply({ ...engine, store: tx })
          throw new RolledBack(String(entities.length))
        })
        .catch((error: unknown) => {
          if (error instanceof RolledBack) return Number(error.message)
          throw error
        })
      return Response.json({ data: [], validated }, { headers: { 'Content-Type': JSON_TYPE } })
    }
    // The body as sent is what a repeated request repeats: its bytes, not the records parsed from them.
    const key = idempotencyKeyOf(request, url.pathname, `${type}\n${text}`)
    const answer = await runIdempotent(engine, principal, key, write, (entities) => ({
      status: 201,
      headers: { 'Content-Type': JSON_TYPE },
      body: JSON.stringify({ data: entities.map((entity) => ({ id: entity.id })) }),
    }))
    return idempotentResponse(answer)
  } catch (error) {
    throw inVersionRows(version, resource, bodies, error)
  }
}
