-- (This migration also rebuilt the example's comments table with an optional author; that table
-- is now derived from its declaration, server/schema/ddl.ts.)
-- Idempotency keys belong to an organization, a client and a subject (the user a token was
-- issued for, or the client itself for a client-credentials token). A row exists only together
-- with its committed answer: it is written in the transaction of the write it answers, so no
-- request can leave a key pending. Rows of the old shape cannot say which user sent them and are
-- dropped (they were kept for 24 hours only).
DROP TABLE idempotency_keys

CREATE TABLE idempotency_keys (
  org_id TEXT NOT NULL REFERENCES orgs(id),
  client_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status INTEGER NOT NULL,
  headers TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (org_id, client_id, subject, key)
) STRICT

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)
