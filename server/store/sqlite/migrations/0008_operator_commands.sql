-- What the admin commands need (docs/operations.md, "Admin commands").
-- A revoked client (`api-server client revoke`) keeps its row, for the listing and the foreign keys
-- of its grants and codes, with the time it was revoked; null while it is live.
ALTER TABLE oauth_clients ADD COLUMN revoked_at TEXT

-- Organization names are unique whatever their case: `name_key` is the name in lower case, under a
-- unique index (null is never a duplicate). A database may already hold names that differ only in
-- case: the oldest of them gets the key, the others keep null, so that the index can be built and
-- none of them is renamed; a new organization cannot take any of those names again.
ALTER TABLE orgs ADD COLUMN name_key TEXT

UPDATE orgs SET name_key = lower(name) WHERE NOT EXISTS (
  SELECT 1 FROM orgs AS older WHERE lower(older.name) = lower(orgs.name)
    AND (older.created_at < orgs.created_at OR (older.created_at = orgs.created_at AND older.id < orgs.id))
)

CREATE UNIQUE INDEX orgs_name_key_unique ON orgs (name_key)
