import type { Resource } from '../../../shared/resources/index.ts'
import { compileAggregate } from '../compile-aggregate.ts'
import type { Executor } from '../executor.ts'
import type { AggregateAnswer, AggregateRequest } from '../types.ts'

/**
 * Counts and sums per group, in one statement. Only a page past the last group that asks for a
 * total needs a second: the window that counts the groups rides on rows, and that page has none.
 */
export async function aggregateRows(
  x: Executor,
  resource: Resource,
  orgId: string,
  request: AggregateRequest,
): Promise<AggregateAnswer> {
  const compiled = compileAggregate(resource, orgId, request, x.dialect)
  const rows = await x.all(compiled.text, compiled.values)
  let total: number | null = null
  if (request.includeTotal) {
    const first = rows[0]
    if (first) total = compiled.totalOf(first)
    else if (!request.offset && !request.after) total = 0
    else total = Number((await x.get<{ n: number | string }>(compiled.countText, compiled.countValues))!.n)
  }
  return { rows: rows.map(compiled.read), total }
}
