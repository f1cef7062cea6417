-- The schema of the SQLite migrations 0001-0005, as PostgreSQL 15 takes it (one file: the
-- PostgreSQL backend starts at this state): the same tables, columns, keys, foreign keys and
-- indexes under the same names (test/store/postgres/migrate.test.ts compares them). What differs
-- from SQLite, and why:
-- - Text compares and sorts byte by byte (COLLATE "C"), as SQLite's BINARY does, whatever locale
--   the database was created with: ids and cursors, ISO 8601 timestamps (kept as text, as the
--   API sorts them and the cursors carry them), JSONPath comparisons give the same order on both
--   backends, and ILIKE and lower() fold ASCII letters only, as SQLite's LIKE and lower() do.
-- - users.email is citext COLLATE "C": equality and the unique index per organization ignore case
--   (citext lowercases by the database's ctype, so beyond ASCII it also folds É to é where SQLite's
--   NOCASE does not), and it sorts as SQLite's NOCASE does, byte by byte after lowercasing, rather
--   than by the database's locale.
-- - Booleans are boolean (SQLite: INTEGER 0/1); JSON stays text (events.data, headers, redirect
--   URIs), since jsonb would reorder keys and what was stored is served and tagged byte for byte.
-- - Full-text search is a generated tsvector column, search_vector, on each table with searchable
--   fields, with a GIN index (<table>_search), kept by PostgreSQL in the write's own statement
--   (SQLite keeps FTS5 tables by triggers, dropped here). Accents are folded by api_unaccent, an
--   IMMUTABLE wrapper of unaccent (itself only STABLE, and a generated column needs an immutable
--   expression), as SQLite's remove_diacritics 2 folds them. Then ASCII punctuation becomes a
--   space, so that a word is a run of letters and digits, as for SQLite's unicode61 and for the
--   query side (searchWords): PostgreSQL's parser would otherwise keep "ann@x.example" or "v1.2"
--   whole and read the "-100" of "WID-100" as a negative number, so that none of their parts
--   could be found.
-- - The event log's position is events.seq, a bigint identity (SQLite uses the rowid); appends
--   take it in commit order (server/store/postgres/event-log.ts). It is int8: Bun.sql returns it
--   as a string.
-- - No STRICT: PostgreSQL's columns are typed anyway.
-- - The declared collections' tables (the built-in example's addresses, products, orders,
--   line_items, posts and comments were here) are derived from their declaration by
--   server/schema/ddl.ts; a database made before keeps them as they were.
-- Statements are separated by blank lines, one statement per block.

CREATE EXTENSION IF NOT EXISTS unaccent

CREATE EXTENSION IF NOT EXISTS citext

CREATE FUNCTION api_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  RETURN public.unaccent('public.unaccent'::regdictionary, $1)

CREATE TABLE orgs (
  id text COLLATE "C" PRIMARY KEY,
  name text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE TABLE settings (
  name text COLLATE "C" PRIMARY KEY,
  value text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE TABLE signing_keys (
  kid text COLLATE "C" PRIMARY KEY,
  private_jwk text COLLATE "C" NOT NULL,
  public_jwk text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  retired_at text COLLATE "C"
)

CREATE TABLE oauth_clients (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" REFERENCES orgs(id),
  name text COLLATE "C" NOT NULL,
  secret_hash text COLLATE "C",
  public boolean NOT NULL,
  redirect_uris text COLLATE "C" NOT NULL,
  grant_types text COLLATE "C" NOT NULL,
  scope text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE TABLE idempotency_keys (
  org_id text COLLATE "C" NOT NULL REFERENCES orgs(id),
  client_id text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  request_hash text COLLATE "C" NOT NULL,
  status integer NOT NULL,
  headers text COLLATE "C" NOT NULL,
  body text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (org_id, client_id, subject, key)
)

CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)

CREATE TABLE users (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL REFERENCES orgs(id),
  name text COLLATE "C" NOT NULL,
  email citext COLLATE "C" NOT NULL,
  role text COLLATE "C" NOT NULL,
  password_hash text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL,
  search_vector tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(api_unaccent(coalesce(name, '') || ' ' || coalesce(email, '')) COLLATE "C", '[[:punct:]]', ' ', 'g'))) STORED
)

CREATE INDEX users_search ON users USING gin (search_vector)

CREATE UNIQUE INDEX users_org_email_unique ON users (org_id, email)

CREATE INDEX users_org_created ON users (org_id, created_at, id)

CREATE INDEX users_org_updated ON users (org_id, updated_at, id)

CREATE INDEX users_org_name_sort ON users (org_id, name, id)

CREATE INDEX users_org_role_sort ON users (org_id, role, id)

CREATE INDEX users_org_email ON users (org_id, email, created_at, id)

CREATE INDEX users_org_role ON users (org_id, role, created_at, id)

CREATE TABLE events (
  id text COLLATE "C" PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  org_id text COLLATE "C" NOT NULL REFERENCES orgs(id),
  type text COLLATE "C" NOT NULL,
  resource text COLLATE "C" NOT NULL,
  resource_id text COLLATE "C" NOT NULL,
  data text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE INDEX events_org_seq ON events (org_id, seq)

CREATE INDEX events_org_created ON events (org_id, created_at, id)

CREATE INDEX events_org_updated ON events (org_id, updated_at, id)

CREATE INDEX events_org_type_sort ON events (org_id, type, id)

CREATE INDEX events_org_type ON events (org_id, type, created_at, id)

CREATE INDEX events_org_resource ON events (org_id, resource, created_at, id)

CREATE INDEX events_org_resource_id ON events (org_id, resource_id, created_at, id)

CREATE TABLE oauth_grants (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL REFERENCES orgs(id),
  client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  scope text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  revoked_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE INDEX oauth_grants_org_created ON oauth_grants (org_id, created_at, id)

CREATE INDEX oauth_grants_user ON oauth_grants (user_id)

CREATE INDEX oauth_grants_client ON oauth_grants (client_id)

CREATE INDEX oauth_grants_expires ON oauth_grants (expires_at)

CREATE TABLE oauth_refresh_tokens (
  hash text COLLATE "C" PRIMARY KEY,
  grant_id text COLLATE "C" NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  org_id text COLLATE "C" NOT NULL REFERENCES orgs(id),
  expires_at text COLLATE "C" NOT NULL,
  used_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id)

CREATE INDEX oauth_refresh_tokens_org_created ON oauth_refresh_tokens (org_id, created_at)

CREATE TABLE oauth_authorization_codes (
  hash text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL REFERENCES orgs(id),
  client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  redirect_uri text COLLATE "C" NOT NULL,
  code_challenge text COLLATE "C",
  scope text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  used_at text COLLATE "C",
  grant_id text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE INDEX oauth_authorization_codes_expires ON oauth_authorization_codes (expires_at)

CREATE INDEX oauth_authorization_codes_user ON oauth_authorization_codes (user_id)

CREATE INDEX oauth_authorization_codes_org_created ON oauth_authorization_codes (org_id, created_at)

CREATE TABLE oauth_device_codes (
  hash text COLLATE "C" PRIMARY KEY,
  user_code text COLLATE "C" NOT NULL UNIQUE,
  org_id text COLLATE "C" REFERENCES orgs(id),
  client_id text COLLATE "C" NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  requested_scope text COLLATE "C",
  user_id text COLLATE "C" REFERENCES users(id) ON DELETE CASCADE,
  scope text COLLATE "C",
  status text COLLATE "C" NOT NULL,
  interval integer NOT NULL,
  last_polled_at text COLLATE "C",
  expires_at text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE INDEX oauth_device_codes_expires ON oauth_device_codes (expires_at)

CREATE INDEX oauth_device_codes_user ON oauth_device_codes (user_id)

CREATE INDEX oauth_device_codes_org_created ON oauth_device_codes (org_id, created_at)

CREATE TABLE oauth_revoked_tokens (
  jti text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL REFERENCES orgs(id),
  expires_at text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE INDEX oauth_revoked_tokens_expires ON oauth_revoked_tokens (expires_at)

CREATE INDEX oauth_revoked_tokens_org_created ON oauth_revoked_tokens (org_id, created_at)

CREATE TABLE stored_queries (
  id text COLLATE "C" PRIMARY KEY,
  org_id text COLLATE "C" NOT NULL REFERENCES orgs(id),
  created_by text COLLATE "C" NOT NULL,
  target text COLLATE "C" NOT NULL,
  media_type text COLLATE "C" NOT NULL,
  body text COLLATE "C" NOT NULL,
  request_hash text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE UNIQUE INDEX stored_queries_request ON stored_queries (org_id, request_hash)

CREATE INDEX stored_queries_updated ON stored_queries (updated_at)

CREATE TABLE query_results (
  token_hash text COLLATE "C" PRIMARY KEY,
  query_id text COLLATE "C" NOT NULL REFERENCES stored_queries(id) ON DELETE CASCADE,
  org_id text COLLATE "C" NOT NULL REFERENCES orgs(id),
  headers text COLLATE "C" NOT NULL,
  body text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL,
  created_at text COLLATE "C" NOT NULL,
  updated_at text COLLATE "C" NOT NULL
)

CREATE INDEX query_results_query ON query_results (query_id)

CREATE INDEX query_results_expires ON query_results (expires_at)

CREATE INDEX oauth_refresh_tokens_expires ON oauth_refresh_tokens (expires_at)

CREATE INDEX oauth_grants_revoked ON oauth_grants (revoked_at) WHERE revoked_at IS NOT NULL
