-- Stored queries and stored results of the HTTP QUERY method (RFC 10008), docs/query.md.
-- A stored query is the body a QUERY carried, kept so that GET on its Location runs it again;
-- the same body sent again to the same target in the same organization reuses the row
-- (request_hash). A stored result is one response, kept for a short time under a random token
-- whose SHA-256 is the key, so the database alone does not give its URL away.
CREATE TABLE stored_queries (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  created_by TEXT NOT NULL,
  target TEXT NOT NULL,
  media_type TEXT NOT NULL,
  body TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE UNIQUE INDEX stored_queries_request ON stored_queries (org_id, request_hash)

CREATE INDEX stored_queries_updated ON stored_queries (updated_at)

CREATE TABLE query_results (
  token_hash TEXT PRIMARY KEY,
  query_id TEXT NOT NULL REFERENCES stored_queries(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  headers TEXT NOT NULL,
  body TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX query_results_query ON query_results (query_id)

CREATE INDEX query_results_expires ON query_results (expires_at)
