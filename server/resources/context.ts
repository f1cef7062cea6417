import type { Schema } from '../../shared/schema/schema.ts'
import type { Principal } from '../auth/tokens.ts'
import type { Tx } from '../store/store.ts'
import type { Entity } from '../store/types.ts'
import type { CursorCodec } from './cursor.ts'

/**
 * The engine's own types: what it is given (its context, a nested path) and what a resource may
 * add to its generic path (hooks). They import no engine module, so that none of the engine's
 * files meet in a circle through them.
 */

/** What the engine needs from the outside world, injected so tests and tools can supply their own. */
export interface EngineContext {
  /** The resources served: references, nested collections and scopes are looked up here. */
  schema: Schema
  /** The store, or inside a write the transaction's view of it. */
  store: Tx
  clock: () => number
  cursors: CursorCodec
  /**
   * The id of the request being served (its X-Request-Id, as in the access log), which every event
   * a write appends records; absent, or answering undefined, outside a request (admin commands).
   */
  requestId?: () => string | undefined
  /** What some resources add to the generic path (webhook endpoints), by collection name. */
  hooks?: HookRegistry
}

/** The nested path a request came through: `/orders/{parentId}/line-items`. */
export interface ParentRef {
  collection: string
  id: string
}

/** What an action of the server's own (one without a state field) did. */
export interface ActionOutcome {
  /** The record afterwards, as events and reads show it. */
  entity: Entity
  /** Values only this answer shows (the resource's `revealed`: a new signing secret). */
  revealed?: Record<string, unknown>
}

/**
 * What a resource adds to the engine's generic path, by collection name (webhook endpoints:
 * server/webhooks/hooks.ts). Every hook runs with the write's context.
 */
export interface ResourceHooks {
  /**
   * Checks a create's or change's values that need I/O (a webhook URL's addresses), before the
   * write's transaction opens (SQLite's transaction may not wait on the network); throws a 422.
   */
  check?(values: Record<string, unknown>): Promise<void>
  /**
   * Fills what a create or replacement leaves out and the declaration cannot default (a value that
   * depends on another, or on the schema in force), and checks the values against one another;
   * throws a 422. Runs in the first phase, without I/O; `values` is changed in place.
   */
  complete?(schema: Schema, values: Record<string, unknown>, mode: 'create' | 'replace' | 'patch'): void
  /**
   * Inside a change's transaction, with the record as it is then: refuses a change its state does
   * not allow (409) or that the record and the values together would break (422).
   */
  changing?(before: Entity, values: Record<string, unknown>): void
  /** Inside a create's transaction, after the insert and its event: values only the create answer shows. */
  created?(
    ctx: EngineContext,
    principal: Principal,
    entity: Entity,
    now: string,
  ): Promise<Record<string, unknown>>
  /** The actions declared without a state field, by name, run inside the action's transaction. */
  actions?: Record<
    string,
    (ctx: EngineContext, principal: Principal, before: Entity, now: string) => Promise<ActionOutcome>
  >
}

export type HookRegistry = ReadonlyMap<string, ResourceHooks>
