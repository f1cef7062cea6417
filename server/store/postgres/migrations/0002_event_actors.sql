-- Events say who made them and in which request (server/store/sqlite/migrations/0006_event_actors.sql).
-- Events appended before keep null in all three: the log is not rewritten.
ALTER TABLE events ADD COLUMN actor_type text COLLATE "C"

ALTER TABLE events ADD COLUMN actor_id text COLLATE "C"

ALTER TABLE events ADD COLUMN request_id text COLLATE "C"

CREATE INDEX events_org_actor_id ON events (org_id, actor_id, created_at, id)
