-- What the admin commands need (server/store/sqlite/migrations/0008_operator_commands.sql): when a
-- client was revoked, and organization names unique whatever their case. Of names that already
-- differ only in case, the oldest gets the key and the others keep null.
ALTER TABLE oauth_clients ADD COLUMN revoked_at text COLLATE "C"

ALTER TABLE orgs ADD COLUMN name_key text COLLATE "C"

UPDATE orgs SET name_key = lower(name) WHERE NOT EXISTS (
  SELECT 1 FROM orgs AS older WHERE lower(older.name) = lower(orgs.name)
    AND (older.created_at < orgs.created_at OR (older.created_at = orgs.created_at AND older.id < orgs.id))
)

CREATE UNIQUE INDEX orgs_name_key_unique ON orgs (name_key)
