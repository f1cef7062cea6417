-- Webhooks (docs/webhooks.md). An endpoint is a declared resource; besides its declared fields it
-- keeps where its deliveries follow the event log (`log_position`, an events rowid, set to the end of
-- the log when it is created) and since when every attempt to it has failed (`failing_since`).
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  url TEXT NOT NULL,
  description TEXT,
  event_types TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  log_position INTEGER NOT NULL DEFAULT 0,
  failing_since TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX webhook_endpoints_org_created ON webhook_endpoints (org_id, created_at, id)

CREATE INDEX webhook_endpoints_org_updated ON webhook_endpoints (org_id, updated_at, id)

CREATE INDEX webhook_endpoints_org_url ON webhook_endpoints (org_id, url, created_at, id)

CREATE INDEX webhook_endpoints_org_enabled ON webhook_endpoints (org_id, enabled, created_at, id)

-- The delivery worker's look for endpoints behind the log.
CREATE INDEX webhook_endpoints_following ON webhook_endpoints (enabled, log_position)

-- Signing secrets, sealed (AES-256-GCM under the instance's webhook key); a rotated one keeps
-- signing until `expires_at`.
CREATE TABLE webhook_secrets (
  id INTEGER PRIMARY KEY,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  sealed TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT
) STRICT

CREATE INDEX webhook_secrets_endpoint ON webhook_secrets (endpoint_id)

-- One event on its way to one endpoint, with the body every attempt sends, and the lease of the
-- instance making the current attempt (`lease_owner` until `lease_until`).
CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  event_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  last_response_status INTEGER,
  last_error TEXT,
  next_attempt_at TEXT,
  payload TEXT NOT NULL,
  lease_owner TEXT,
  lease_until TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (endpoint_id, event_id)
) STRICT

CREATE INDEX webhook_deliveries_org_created ON webhook_deliveries (org_id, created_at, id)

CREATE INDEX webhook_deliveries_org_updated ON webhook_deliveries (org_id, updated_at, id)

CREATE INDEX webhook_deliveries_org_status_sort ON webhook_deliveries (org_id, status, id)

CREATE INDEX webhook_deliveries_org_next_attempt_at_sort ON webhook_deliveries (org_id, next_attempt_at, id)

CREATE INDEX webhook_deliveries_org_endpoint_id ON webhook_deliveries (org_id, endpoint_id, created_at, id)

CREATE INDEX webhook_deliveries_org_event_id ON webhook_deliveries (org_id, event_id, created_at, id)

CREATE INDEX webhook_deliveries_org_event_type ON webhook_deliveries (org_id, event_type, created_at, id)

CREATE INDEX webhook_deliveries_org_status ON webhook_deliveries (org_id, status, created_at, id)

-- The worker's look for due attempts.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)
