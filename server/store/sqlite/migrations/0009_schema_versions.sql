-- Each schema applied to the database (server/schema/reconcile.ts): its version, the SHA-256 of
-- its declaration as key-sorted JSON, when it was applied, and that JSON, which the next start
-- compares the declared schema with.
CREATE TABLE schema_versions (
  version INTEGER PRIMARY KEY,
  hash TEXT NOT NULL,
  applied_at TEXT NOT NULL,
  declaration TEXT NOT NULL
) STRICT
