-- OAuth clients are a resource (docs/oauth.md, "OAuth clients as a resource"): its `scopes` field
-- is a JSON list like every list field, where `scope` held the scopes separated by spaces (a scope
-- has no space or quote, so each word becomes one string of the list), and the table gets what
-- the declaration's sorts, filters and search need.
ALTER TABLE oauth_clients ADD COLUMN scopes TEXT NOT NULL DEFAULT '[]'

UPDATE oauth_clients SET scopes = CASE
  WHEN trim(scope) = '' THEN '[]'
  ELSE '["' || replace(trim(scope), ' ', '","') || '"]'
END

ALTER TABLE oauth_clients DROP COLUMN scope

CREATE INDEX oauth_clients_org_created ON oauth_clients (org_id, created_at, id)

CREATE INDEX oauth_clients_org_updated ON oauth_clients (org_id, updated_at, id)

CREATE INDEX oauth_clients_org_name_sort ON oauth_clients (org_id, name, id)

CREATE INDEX oauth_clients_org_public ON oauth_clients (org_id, public, created_at, id)

CREATE INDEX oauth_clients_org_revoked_at ON oauth_clients (org_id, revoked_at, created_at, id)

CREATE VIRTUAL TABLE oauth_clients_fts USING fts5(name, content='oauth_clients', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')

CREATE TRIGGER oauth_clients_fts_insert AFTER INSERT ON oauth_clients BEGIN
  INSERT INTO oauth_clients_fts (rowid, name) VALUES (new.rowid, new.name);
END

CREATE TRIGGER oauth_clients_fts_delete AFTER DELETE ON oauth_clients BEGIN
  INSERT INTO oauth_clients_fts (oauth_clients_fts, rowid, name) VALUES ('delete', old.rowid, old.name);
END

CREATE TRIGGER oauth_clients_fts_update AFTER UPDATE ON oauth_clients BEGIN
  INSERT INTO oauth_clients_fts (oauth_clients_fts, rowid, name) VALUES ('delete', old.rowid, old.name);
  INSERT INTO oauth_clients_fts (rowid, name) VALUES (new.rowid, new.name);
END

-- The clients there before: their names searchable too.
INSERT INTO oauth_clients_fts (oauth_clients_fts) VALUES ('rebuild')
