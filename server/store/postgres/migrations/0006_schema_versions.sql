-- Each schema applied to the database (server/store/sqlite/migrations/0009_schema_versions.sql).
CREATE TABLE schema_versions (
  version integer PRIMARY KEY,
  hash text COLLATE "C" NOT NULL,
  applied_at text COLLATE "C" NOT NULL,
  declaration text COLLATE "C" NOT NULL
)
