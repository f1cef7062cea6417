import type { Principal } from '../auth/tokens.ts'
import type { EngineContext } from './context.ts'
import type { Entity } from './reads.ts'

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
