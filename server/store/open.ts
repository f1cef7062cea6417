import { openSqliteStore } from './sqlite/store.ts'
import type { Store } from './store.ts'
import type { Durability } from './types.ts'

/**
 * Opens the store a `--db` value names: a SQLite file path (created if missing, in a directory
 * that must exist) or `:memory:`. Fails with a DatabaseFileError naming the path.
 */
export function openStore(location: string, durability: Durability = 'full'): Store {
  return openSqliteStore(location, durability)
}
