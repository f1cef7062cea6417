-- Statements are separated by blank lines (bun-sqlite-migrations runs one statement per block).
-- Timestamps are ISO 8601 UTC strings with milliseconds, so they sort as text.
-- Indexes: (org_id, created_at, id) serves the default sort; (org_id, col, id) each sort field
-- (the unique (org_id, email) index serves that sort); (org_id, col, created_at, id) each equality
-- filter with the default sort. The declared collections' tables (the built-in example's
-- addresses, products, orders, line_items, posts and comments were here) are derived from their
-- declaration by server/schema/ddl.ts; a database made before keeps them as they were.
-- Full-text search: external-content FTS5 tables over the searchable fields, kept in step by
-- triggers, so the index changes in the same transaction as the row.
CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE TABLE settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  private_jwk TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  retired_at TEXT
) STRICT

CREATE TABLE oauth_clients (
  id TEXT PRIMARY KEY,
  org_id TEXT REFERENCES orgs(id),
  name TEXT NOT NULL,
  secret_hash TEXT,
  public INTEGER NOT NULL,
  redirect_uris TEXT NOT NULL,
  grant_types TEXT NOT NULL,
  scope TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE TABLE idempotency_keys (
  org_id TEXT NOT NULL REFERENCES orgs(id),
  client_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER,
  headers TEXT,
  body TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (org_id, client_id, key)
) STRICT

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  email TEXT NOT NULL COLLATE NOCASE,
  role TEXT NOT NULL,
  password_hash TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE UNIQUE INDEX users_org_email_unique ON users (org_id, email)

CREATE INDEX users_org_created ON users (org_id, created_at, id)

CREATE INDEX users_org_updated ON users (org_id, updated_at, id)

CREATE INDEX users_org_name_sort ON users (org_id, name, id)

CREATE INDEX users_org_role_sort ON users (org_id, role, id)

CREATE INDEX users_org_email ON users (org_id, email, created_at, id)

CREATE INDEX users_org_role ON users (org_id, role, created_at, id)

CREATE VIRTUAL TABLE users_fts USING fts5(name, email, content='users', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')

CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
  INSERT INTO users_fts (rowid, name, email) VALUES (new.rowid, new.name, new.email);
END

CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
  INSERT INTO users_fts (users_fts, rowid, name, email) VALUES ('delete', old.rowid, old.name, old.email);
END

CREATE TRIGGER users_fts_update AFTER UPDATE ON users BEGIN
  INSERT INTO users_fts (users_fts, rowid, name, email) VALUES ('delete', old.rowid, old.name, old.email);
  INSERT INTO users_fts (rowid, name, email) VALUES (new.rowid, new.name, new.email);
END

CREATE TABLE events (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  type TEXT NOT NULL,
  resource TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX events_org_created ON events (org_id, created_at, id)

CREATE INDEX events_org_updated ON events (org_id, updated_at, id)

CREATE INDEX events_org_type_sort ON events (org_id, type, id)

CREATE INDEX events_org_type ON events (org_id, type, created_at, id)

CREATE INDEX events_org_resource ON events (org_id, resource, created_at, id)

CREATE INDEX events_org_resource_id ON events (org_id, resource_id, created_at, id)
