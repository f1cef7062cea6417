import type { Tx } from '../store/store.ts'
import type { CursorCodec } from './cursor.ts'
import type { HookRegistry } from './hooks.ts'

/** What the engine needs from the outside world, injected so tests and tools can supply their own. */
export interface EngineContext {
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
