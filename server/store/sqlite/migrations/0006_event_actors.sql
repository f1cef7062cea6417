-- Events say who made them and in which request: the actor (`actor_type` user, client or system,
-- and its `actor_id`, shown together as `actor`) and the request's X-Request-Id. Events appended
-- before keep null in all three: the log is not rewritten.
ALTER TABLE events ADD COLUMN actor_type TEXT

ALTER TABLE events ADD COLUMN actor_id TEXT

ALTER TABLE events ADD COLUMN request_id TEXT

-- `actor_id=` filters the log, as every declared filter, per organization in the default order.
CREATE INDEX events_org_actor_id ON events (org_id, actor_id, created_at, id)
