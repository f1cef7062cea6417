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

-- A comment's author is optional (contract: `text` alone is a valid create; the author defaults
-- to the token's user, or null for a client token). SQLite cannot drop NOT NULL in place: the
-- table is rebuilt with the same rowids, so its full-text index stays valid.
CREATE TABLE comments_rebuilt (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  post_id TEXT NOT NULL REFERENCES posts(id),
  author_id TEXT REFERENCES users(id),
  text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

INSERT INTO comments_rebuilt (rowid, id, org_id, post_id, author_id, text, created_at, updated_at)
  SELECT rowid, id, org_id, post_id, author_id, text, created_at, updated_at FROM comments

DROP TABLE comments

ALTER TABLE comments_rebuilt RENAME TO comments

CREATE INDEX comments_org_created ON comments (org_id, created_at, id)

CREATE INDEX comments_org_updated ON comments (org_id, updated_at, id)

CREATE INDEX comments_org_post_id ON comments (org_id, post_id, created_at, id)

CREATE INDEX comments_org_author_id ON comments (org_id, author_id, created_at, id)

CREATE INDEX comments_post_id_fk ON comments (post_id)

CREATE INDEX comments_author_id_fk ON comments (author_id)

CREATE TRIGGER comments_fts_insert AFTER INSERT ON comments BEGIN
  INSERT INTO comments_fts (rowid, text) VALUES (new.rowid, new.text);
END

CREATE TRIGGER comments_fts_delete AFTER DELETE ON comments BEGIN
  INSERT INTO comments_fts (comments_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END

CREATE TRIGGER comments_fts_update AFTER UPDATE ON comments BEGIN
  INSERT INTO comments_fts (comments_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
  INSERT INTO comments_fts (rowid, text) VALUES (new.rowid, new.text);
END
