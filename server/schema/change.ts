/**
 * One difference between the schema a database holds and the schema declared for it, as the
 * statements that make the database follow (server/schema/changes.ts plans them,
 * server/schema/reconcile.ts applies them). docs/schema.md lists every kind.
 */
export interface SchemaChange {
  /** One line naming what changes: `add field books.subtitle (text, nullable)`. */
  description: string
  /**
   * May lose or reject stored data (a removed collection or field, a changed type, a narrower
   * limit, a new required field without default): applied only by `schema apply
   * --allow-destructive`, never at start.
   */
  destructive: boolean
  /** The statements, in order, in the database's dialect; run in the one transaction of the change set. */
  statements: string[]
  /**
   * A query answering one row with a column `n`: the stored records the change would reject (a new
   * `unique` the data breaks, a new required field on a table with rows). A change whose probe finds
   * any is destructive, and its description says how many.
   */
  probe?: string
}
