-- Housekeeping (server/ops/housekeeping.ts) deletes a bounded batch of expired rows of each kind
-- per run; every batch is found through an index. Refresh tokens by expiry, and revoked grants
-- (a few among many live ones, hence a partial index).
CREATE INDEX oauth_refresh_tokens_expires ON oauth_refresh_tokens (expires_at)

CREATE INDEX oauth_grants_revoked ON oauth_grants (revoked_at) WHERE revoked_at IS NOT NULL
