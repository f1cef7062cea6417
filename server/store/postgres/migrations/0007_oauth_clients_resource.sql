-- OAuth clients are a resource (docs/oauth.md, "OAuth clients as a resource"): its `scopes` field
-- is a JSON list like every list field, where `scope` held the scopes separated by spaces, and the
-- table gets what the declaration's sorts, filters and search need (as server/schema/ddl.ts
-- would make them).
ALTER TABLE oauth_clients ADD COLUMN scopes text COLLATE "C" NOT NULL DEFAULT '[]'

UPDATE oauth_clients SET scopes = to_json(string_to_array(btrim(scope), ' '))::text WHERE btrim(scope) <> ''

ALTER TABLE oauth_clients DROP COLUMN scope

ALTER TABLE oauth_clients ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace(api_unaccent(coalesce(name, '')) COLLATE "C", '[[:punct:]]', ' ', 'g'))) STORED

CREATE INDEX oauth_clients_search ON oauth_clients USING gin (search_vector)

CREATE INDEX oauth_clients_org_created ON oauth_clients (org_id, created_at, id)

CREATE INDEX oauth_clients_org_updated ON oauth_clients (org_id, updated_at, id)

CREATE INDEX oauth_clients_org_name_sort ON oauth_clients (org_id, name, id)

CREATE INDEX oauth_clients_org_public ON oauth_clients (org_id, public, created_at, id)

CREATE INDEX oauth_clients_org_revoked_at ON oauth_clients (org_id, revoked_at, created_at, id)
