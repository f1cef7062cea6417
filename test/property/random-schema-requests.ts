/**
 * What the served random-schema property (random-schemas.property.test.ts) asks of a server besides
 * a collection's own reads and writes: requests with a tenant's token, GraphQL's list, and deletes
 * with what they take along or are refused for (docs/api.md).
 */
import { expect } from 'bun:test'
import { camelCase } from '../../shared/query/fields.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Tenant } from '../support/server.ts'

export type Rec = Record<string, unknown> & { id: string }

/** One server's records and the requests made of it. */
export interface Run {
  tenant: Tenant
  tag: string
  /** The record of each collection that others reference and nest under. */
  firsts: Map<string, string>
  /** Records that exist, by collection. */
  live: Map<string, Rec[]>
}

export async function call(run: Run, method: string, path: string, json?: unknown) {
  const response = await run.tenant.fetch(path, { method, ...(json === undefined ? {} : { json }) })
  const text = await response.text()
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> }
}

export async function ok(run: Run, method: string, path: string, json: unknown, status: number) {
  const answer = await call(run, method, path, json)
  if (answer.status !== status)
    throw new Error(
      `${method} ${path} ${JSON.stringify(json)} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
    )
  return answer.body
}

export const listIds = async (run: Run, path: string) =>
  ((await ok(run, 'GET', path, undefined, 200)).data as Rec[]).map((r) => r.id)
/** GraphQL's list of the collection holds each record with the values REST gave. */
export async function checkGraphql(run: Run, resource: Resource, records: Rec[]) {
  const fields = Object.keys(resource.fields).filter((f) => !resource.fields[f]!.currencyField)
  const query = `{ ${camelCase(resource.name.replace(/-/g, '_'))}(first: 50) { nodes { id ${fields.join(' ')} } } }`
  const graphql = await ok(run, 'POST', '/graphql', { query }, 200)
  expect(graphql.errors).toBeUndefined()
  const nodes = (Object.values(graphql.data as object)[0] as { nodes: Rec[] }).nodes
  expect(nodes.map((n) => n.id).sort()).toEqual(records.map((r) => r.id).sort())
  for (const record of records) {
    const fromRest = Object.fromEntries(fields.map((f) => [f, record[f]]))
    expect({ id: record.id, ...fromRest }).toEqual(nodes.find((n) => n.id === record.id)!)
  }
}

/** The records a delete of `id` removes: it and, first, its nested children (docs/api.md). */
function removedBy(run: Run, resources: readonly Resource[], collection: string, id: string): string[] {
  const removed = [id]
  for (const child of resources.filter((r) => r.parent?.collection === collection))
    for (const record of run.live.get(child.name) ?? [])
      if (record[child.parent!.field] === id)
        removed.push(...removedBy(run, resources, child.name, record.id))
  return removed
}

/** Deletes each collection's first record: 409 while a record it would not remove references one it would. */
export async function checkDeletes(run: Run, resources: readonly Resource[]) {
  for (const resource of resources) {
    const target = run.live.get(resource.name)?.[0]
    if (!target) continue
    const removed = new Set(removedBy(run, resources, resource.name, target.id))
    const referenced = resources.some((r) =>
      (run.live.get(r.name) ?? []).some(
        (record) =>
          !removed.has(record.id) &&
          Object.entries(r.fields).some(([f, field]) => field.references && removed.has(record[f] as string)),
      ),
    )
    const answer = await call(run, 'DELETE', `/api/v1/${resource.name}/${target.id}`)
    expect({ delete: target.id, status: answer.status }).toEqual({
      delete: target.id,
      status: referenced ? 409 : 204,
    })
    if (referenced) continue
    for (const r of resources) {
      const records = run.live.get(r.name) ?? []
      for (const record of records.filter((x) => removed.has(x.id)))
        expect((await call(run, 'GET', `/api/v1/${r.name}/${record.id}`)).status).toBe(404)
      run.live.set(
        r.name,
        records.filter((x) => !removed.has(x.id)),
      )
    }
  }
}
