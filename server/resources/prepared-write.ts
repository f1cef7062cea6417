import type { EngineContext } from './context.ts'

/**
 * A write in two phases (docs/architecture.md, "Writes in two phases"). Each kind of write has a
 * `prepare*` function (`prepareCreate`, `prepareUpdate`, `prepareDelete`, `prepareBulkDelete`,
 * `prepareAction`) that runs outside any transaction and does what does not depend on the rows as
 * they will be when the write lands: it authorizes the principal (the collection is writable, the
 * token has its scope), validates the body and fills its defaults. It returns this:
 *
 * - `check`: the I/O a resource's hooks need (a webhook URL's DNS lookup), run after `prepare` and
 *   before the transaction opens, never inside it: on SQLite an open transaction holds the one
 *   writer lock, and every other write waits for it; on PostgreSQL it holds a connection and its
 *   locks. An `Idempotency-Key` replay skips it, since a replay writes nothing.
 * - `apply`: the write itself, handed the one transaction it runs in (`runWrite` opens it, or
 *   `runIdempotent` with the key's row in it). What depends on the rows as they are then is checked
 *   here, on the locked record, so that it still holds at the commit: the record exists and is the
 *   organization's (404, 403), its parent likewise, `If-Match` (412), an action's starting state
 *   (409), references and unique values (422, 409), and who may change a privileged field's current
 *   value. Checked before the transaction, any of these could be stale by the time the write lands.
 */
export interface PreparedWrite<T> {
  check(): Promise<void>
  apply(tx: EngineContext): Promise<T>
}

/** `check` of a write with nothing to look up outside the database. */
export const nothingToCheck = async (): Promise<void> => {}

/** Runs a prepared write on its own: its hooks' checks, then `apply` in one transaction. */
export async function runWrite<T>(ctx: EngineContext, write: PreparedWrite<T>): Promise<T> {
  await write.check()
  return await ctx.store.transaction((store) => write.apply({ ...ctx, store }))
}
