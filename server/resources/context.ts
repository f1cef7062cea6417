import type { Database } from '../store/db.ts'
import type { CursorCodec } from './cursor.ts'

/** What the engine needs from the outside world, injected so tests and tools can supply their own. */
export interface EngineContext {
  db: Database
  clock: () => number
  cursors: CursorCodec
}

/** The nested path a request came through: `/orders/{parentId}/line-items`. */
export interface ParentRef {
  collection: string
  id: string
}
