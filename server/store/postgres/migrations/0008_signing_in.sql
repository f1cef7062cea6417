-- Signing in (docs/oauth.md, "Signing in"): outside identities linked to users, second factors
-- (TOTP with recovery codes, passkeys), single-use WebAuthn challenges, and each organization's
-- second-factor policy. A user's rows go with the user.
ALTER TABLE orgs ADD COLUMN require_2fa text COLLATE "C" NOT NULL DEFAULT 'none'

CREATE TABLE user_identities (
  provider text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  email text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (provider, subject)
)

CREATE INDEX user_identities_user ON user_identities (user_id)

CREATE TABLE user_totp (
  user_id text COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  sealed_secret text COLLATE "C" NOT NULL,
  confirmed_at text COLLATE "C",
  last_step bigint NOT NULL DEFAULT 0,
  created_at text COLLATE "C" NOT NULL
)

CREATE TABLE user_recovery_codes (
  user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash text COLLATE "C" NOT NULL,
  used_at text COLLATE "C",
  created_at text COLLATE "C" NOT NULL,
  PRIMARY KEY (user_id, code_hash)
)

CREATE TABLE user_passkeys (
  id text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text COLLATE "C" NOT NULL,
  algorithm integer NOT NULL,
  public_key text COLLATE "C" NOT NULL,
  sign_count bigint NOT NULL DEFAULT 0,
  created_at text COLLATE "C" NOT NULL,
  last_used_at text COLLATE "C"
)

CREATE INDEX user_passkeys_user ON user_passkeys (user_id, created_at)

CREATE TABLE webauthn_challenges (
  challenge_hash text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C",
  purpose text COLLATE "C" NOT NULL,
  expires_at text COLLATE "C" NOT NULL
)

CREATE INDEX webauthn_challenges_expires ON webauthn_challenges (expires_at)
