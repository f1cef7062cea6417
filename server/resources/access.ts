import { forbidden, notFound } from '../../shared/errors.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Principal } from '../auth/tokens.ts'
import type { StoredRecord } from '../store/types.ts'
import type { EngineContext, ParentRef } from './context.ts'

const missing = (resource: Resource, id: string) => notFound(`No ${resource.singular} with id ${id}.`)

/**
 * The record the principal addresses: 404 when it does not exist (or belongs to no organization),
 * 403 when it belongs to another organization (contract), and 404 when a nested path names a
 * parent that does not own it.
 */
export async function loadRecord(
  ctx: EngineContext,
  principal: Principal,
  resource: Resource,
  id: string,
  parent?: ParentRef,
  /** A write's load: the record stays as read until the write's transaction ends. */
  forUpdate = false,
  /** The fields to read (a read's `fields`); every field when absent. The parent's id is added. */
  columns?: readonly string[],
): Promise<StoredRecord> {
  if (parent) await loadParent(ctx, principal, resource, parent)
  const read = columns && resource.parent ? [...columns, resource.parent.field] : columns
  const record = forUpdate
    ? await ctx.store.records.findForUpdate(resource, id)
    : await ctx.store.records.find(resource, id, read)
  // A row of no organization is the service's own (the command-line client): none of the API's.
  if (!record || record.orgId === null) throw missing(resource, id)
  if (record.orgId !== principal.orgId) throw ofAnotherOrganization(resource)
  if (parent && record.entity[resource.parent!.field] !== parent.id) throw missing(resource, id)
  return record
}

/** The parent of a nested request, checked like any record. */
export async function loadParent(
  ctx: EngineContext,
  principal: Principal,
  child: Resource,
  parent: ParentRef,
): Promise<StoredRecord> {
  const parentResource = ctx.schema.byName(child.parent!.collection)!
  const record = await ctx.store.records.find(parentResource, parent.id)
  if (!record) throw missing(parentResource, parent.id)
  if (record.orgId !== principal.orgId) throw ofAnotherOrganization(parentResource)
  return record
}

function ofAnotherOrganization(resource: Resource) {
  return forbidden(`This ${resource.singular} belongs to another organization.`)
}
