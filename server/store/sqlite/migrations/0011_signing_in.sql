-- Signing in (docs/oauth.md, "Signing in"): outside identities linked to users, second factors
-- (TOTP with recovery codes, passkeys), single-use WebAuthn challenges, and each organization's
-- second-factor policy. A user's rows go with the user.
ALTER TABLE orgs ADD COLUMN require_2fa TEXT NOT NULL DEFAULT 'none'

CREATE TABLE user_identities (
  provider TEXT NOT NULL,
  subject TEXT NOT NULL,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  email TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (provider, subject)
) STRICT

CREATE INDEX user_identities_user ON user_identities (user_id)

CREATE TABLE user_totp (
  user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  sealed_secret TEXT NOT NULL,
  confirmed_at TEXT,
  last_step INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
) STRICT

CREATE TABLE user_recovery_codes (
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL,
  used_at TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, code_hash)
) STRICT

CREATE TABLE user_passkeys (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  algorithm INTEGER NOT NULL,
  public_key TEXT NOT NULL,
  sign_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  last_used_at TEXT
) STRICT

CREATE INDEX user_passkeys_user ON user_passkeys (user_id, created_at)

CREATE TABLE webauthn_challenges (
  challenge_hash TEXT PRIMARY KEY,
  user_id TEXT,
  purpose TEXT NOT NULL,
  expires_at TEXT NOT NULL
) STRICT

CREATE INDEX webauthn_challenges_expires ON webauthn_challenges (expires_at)
