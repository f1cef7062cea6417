import { rejectUnknownParams } from '../../shared/query/pagination.ts'
import type { Principal } from '../auth/tokens.ts'
import { readJsonBody } from '../http/body.ts'
import type { MethodTable } from '../http/method-table.ts'
import { JSON_TYPE } from '../http/responses.ts'
import type { EngineContext } from '../resources/context.ts'
import { runIdempotent } from '../resources/idempotency.ts'
import type { PreparedWrite } from '../resources/prepared-write.ts'
import { idempotencyKeyOf, idempotentResponse } from '../rest/idempotency.ts'
import type { ApiVersion } from '../versions/versions.ts'
import { parseBatch } from './body.ts'
import { asOperation } from './named-error.ts'
import {
  bodyOf,
  checkStatically,
  idsOf,
  type OperationResult,
  type Planned,
  prepareOperation,
} from './operation.ts'
import { resolveTarget } from './target.ts'

const NO_PARAMS = new Set<string>()

/**
 * Every operation routed and authorized, in order, before anything is written; an operation
 * without references is also validated and prepared now, as its REST request would be.
 */
async function plan(
  engine: EngineContext,
  principal: Principal,
  version: ApiVersion,
  body: unknown,
): Promise<Planned[]> {
  const planned: Planned[] = []
  for (const op of parseBatch(body)) {
    const target = await asOperation(op, () => resolveTarget(engine.schema, op))
    await asOperation(op, () => checkStatically(engine, principal, op, target))
    if (op.refers.body) {
      planned.push({ op, target })
      continue
    }
    // Ids that refer are unknown yet; they matter to `apply` alone, which this preparation never runs.
    const ids = op.refers.path ? {} : idsOf(engine, target, new Map(), op.place)
    const write = await asOperation(op, () =>
      prepareOperation(engine, principal, version, { op, target }, ids, op.body),
    )
    planned.push(op.refers.path ? { op, target, checked: write } : { op, target, write })
  }
  return planned
}

/**
 * The batch as one prepared write: the hooks' checks of the prepared operations before the
 * transaction, then every operation applied in order in it; an operation with references is
 * prepared there, once the results it names exist. The first error names its operation and ends
 * the transaction, so nothing of the batch is written, events included.
 */
function batchWrite(
  principal: Principal,
  version: ApiVersion,
  planned: readonly Planned[],
): PreparedWrite<OperationResult[]> {
  return {
    check: async () => {
      for (const { op, write, checked } of planned) {
        const ahead = write ?? checked
        if (ahead) await asOperation(op, () => ahead.check())
      }
    },
    apply: async (tx) => {
      const results: OperationResult[] = []
      const byRef = new Map<string, unknown>()
      for (const step of planned) {
        const { op, target } = step
        const result = await asOperation(op, async () => {
          if (step.write) return await step.write.apply(tx)
          const write = await prepareOperation(
            tx,
            principal,
            version,
            step,
            idsOf(tx, target, byRef, `${op.place}.path`),
            bodyOf(op, byRef),
          )
          // A body with references is checked here; none of those writes has a hook's check to run
          // (checkStatically refuses them), so no lookup ever holds the transaction.
          if (!step.checked) await write.check()
          return await write.apply(tx)
        })
        results.push(result)
        if (op.ref !== undefined) byRef.set(op.ref, result.body)
      }
      return results
    },
  }
}

/**
 * `POST /api/v2/batch` (docs/bulk.md, "Atomic batches"): up to 100 writes in one transaction, each
 * authorized and validated as if sent alone, answered `{"results": [{status, body}, ...]}` in
 * order; `Idempotency-Key` covers the whole batch.
 */
export function batchTable(engine: EngineContext, version: ApiVersion): MethodTable {
  return {
    POST: async ({ request, url, principal }) => {
      rejectUnknownParams(url.searchParams, NO_PARAMS)
      const body = await readJsonBody(request)
      const key = idempotencyKeyOf(request, url.pathname, body)
      const planned = await plan(engine, principal, version, body)
      // A create or action that shows a secret once (a webhook endpoint's) keeps its answer sealed.
      const sealed = planned.some(({ target }) => Object.keys(target.resource.revealed).length > 0)
      const answer = await runIdempotent(
        engine,
        principal,
        key,
        batchWrite(principal, version, planned),
        (results) => ({
          status: 200,
          headers: { 'Content-Type': JSON_TYPE },
          body: JSON.stringify({ results }),
        }),
        sealed,
      )
      return idempotentResponse(answer)
    },
  }
}
