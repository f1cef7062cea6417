-- The authorization server's state. Statements are separated by blank lines.
-- Every secret (authorization code, refresh token, device code) is stored as the hex SHA-256 of
-- its value: they are 256 random bits, so a fast hash is enough and a stolen database holds no
-- usable token.
-- A grant is one "family": what one user allowed one client, and every token issued from it
-- (access tokens carry its id as `sid`). Revoking it revokes all of them. Deleting the user
-- deletes their grants, codes and device approvals (ON DELETE CASCADE), which revokes their tokens.
CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  scope TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  revoked_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX oauth_grants_org_created ON oauth_grants (org_id, created_at, id)

CREATE INDEX oauth_grants_user ON oauth_grants (user_id)

CREATE INDEX oauth_grants_client ON oauth_grants (client_id)

CREATE INDEX oauth_grants_expires ON oauth_grants (expires_at)

-- expires_at is the idle expiry; used_at is set when the token is rotated (presenting it again
-- is reuse and revokes the grant).
CREATE TABLE oauth_refresh_tokens (
  hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  expires_at TEXT NOT NULL,
  used_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id)

CREATE INDEX oauth_refresh_tokens_org_created ON oauth_refresh_tokens (org_id, created_at)

-- grant_id is set when the code is redeemed, so that a second redemption can revoke what the
-- first one issued.
CREATE TABLE oauth_authorization_codes (
  hash TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT,
  scope TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT,
  grant_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX oauth_authorization_codes_expires ON oauth_authorization_codes (expires_at)

CREATE INDEX oauth_authorization_codes_user ON oauth_authorization_codes (user_id)

CREATE INDEX oauth_authorization_codes_org_created ON oauth_authorization_codes (org_id, created_at)

-- org_id and user_id stay null until a user approves. status: pending, approved, denied, redeemed.
-- interval is the polling interval in seconds, raised by slow_down (RFC 8628 §3.5).
CREATE TABLE oauth_device_codes (
  hash TEXT PRIMARY KEY,
  user_code TEXT NOT NULL UNIQUE,
  org_id TEXT REFERENCES orgs(id),
  client_id TEXT NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  requested_scope TEXT,
  user_id TEXT REFERENCES users(id) ON DELETE CASCADE,
  scope TEXT,
  status TEXT NOT NULL,
  interval INTEGER NOT NULL,
  last_polled_at TEXT,
  expires_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX oauth_device_codes_expires ON oauth_device_codes (expires_at)

CREATE INDEX oauth_device_codes_user ON oauth_device_codes (user_id)

CREATE INDEX oauth_device_codes_org_created ON oauth_device_codes (org_id, created_at)

-- Revoked client-credentials access tokens (they belong to no grant), by jti, kept until they
-- would have expired anyway.
CREATE TABLE oauth_revoked_tokens (
  jti TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  expires_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX oauth_revoked_tokens_expires ON oauth_revoked_tokens (expires_at)

CREATE INDEX oauth_revoked_tokens_org_created ON oauth_revoked_tokens (org_id, created_at)
