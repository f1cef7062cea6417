-- Statements are separated by blank lines (bun-sqlite-migrations runs one statement per block).
-- Timestamps are ISO 8601 UTC strings with milliseconds, so they sort as text.
CREATE TABLE orgs (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE TABLE settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE TABLE signing_keys (
  kid TEXT PRIMARY KEY,
  private_jwk TEXT NOT NULL,
  public_jwk TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  retired_at TEXT
) STRICT

CREATE TABLE oauth_clients (
  id TEXT PRIMARY KEY,
  org_id TEXT REFERENCES orgs(id),
  name TEXT NOT NULL,
  secret_hash TEXT,
  public INTEGER NOT NULL,
  redirect_uris TEXT NOT NULL,
  grant_types TEXT NOT NULL,
  scope TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE TABLE idempotency_keys (
  org_id TEXT NOT NULL REFERENCES orgs(id),
  client_id TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state TEXT NOT NULL,
  status INTEGER,
  headers TEXT,
  body TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (org_id, client_id, key)
) STRICT

CREATE TABLE users (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  email TEXT NOT NULL COLLATE NOCASE,
  role TEXT NOT NULL,
  password_hash TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE UNIQUE INDEX users_org_email ON users (org_id, email)

CREATE INDEX users_org_created ON users (org_id, created_at, id)

CREATE INDEX users_org_updated ON users (org_id, updated_at, id)

CREATE INDEX users_org_name ON users (org_id, name, id)

CREATE INDEX users_org_role ON users (org_id, role, created_at, id)

CREATE TABLE addresses (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  line1 TEXT NOT NULL,
  line2 TEXT,
  city TEXT NOT NULL,
  postal_code TEXT,
  country TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX addresses_org_created ON addresses (org_id, created_at, id)

CREATE INDEX addresses_org_updated ON addresses (org_id, updated_at, id)

CREATE INDEX addresses_org_user ON addresses (org_id, user_id, created_at, id)

CREATE INDEX addresses_user ON addresses (user_id)

CREATE INDEX addresses_org_city ON addresses (org_id, city, created_at, id)

CREATE INDEX addresses_org_postal_code ON addresses (org_id, postal_code, created_at, id)

CREATE INDEX addresses_org_country ON addresses (org_id, country, created_at, id)

CREATE TABLE products (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  name TEXT NOT NULL,
  sku TEXT NOT NULL,
  description TEXT,
  price INTEGER NOT NULL,
  currency TEXT NOT NULL,
  active INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE UNIQUE INDEX products_org_sku ON products (org_id, sku)

CREATE INDEX products_org_created ON products (org_id, created_at, id)

CREATE INDEX products_org_updated ON products (org_id, updated_at, id)

CREATE INDEX products_org_name ON products (org_id, name, id)

CREATE INDEX products_org_price ON products (org_id, price, created_at, id)

CREATE INDEX products_org_currency ON products (org_id, currency, created_at, id)

CREATE INDEX products_org_active ON products (org_id, active, created_at, id)

CREATE TABLE orders (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  user_id TEXT NOT NULL REFERENCES users(id),
  status TEXT NOT NULL,
  amount INTEGER NOT NULL,
  currency TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX orders_org_created ON orders (org_id, created_at, id)

CREATE INDEX orders_org_updated ON orders (org_id, updated_at, id)

CREATE INDEX orders_org_user ON orders (org_id, user_id, created_at, id)

CREATE INDEX orders_user ON orders (user_id)

CREATE INDEX orders_org_status ON orders (org_id, status, created_at, id)

CREATE INDEX orders_org_amount ON orders (org_id, amount, created_at, id)

CREATE INDEX orders_org_currency ON orders (org_id, currency, created_at, id)

CREATE TABLE line_items (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  order_id TEXT NOT NULL REFERENCES orders(id),
  product_id TEXT NOT NULL REFERENCES products(id),
  quantity INTEGER NOT NULL,
  unit_price INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX line_items_org_created ON line_items (org_id, created_at, id)

CREATE INDEX line_items_org_updated ON line_items (org_id, updated_at, id)

CREATE INDEX line_items_org_order ON line_items (org_id, order_id, created_at, id)

CREATE INDEX line_items_order ON line_items (order_id)

CREATE INDEX line_items_org_product ON line_items (org_id, product_id, created_at, id)

CREATE INDEX line_items_product ON line_items (product_id)

CREATE INDEX line_items_org_quantity ON line_items (org_id, quantity, created_at, id)

CREATE INDEX line_items_org_unit_price ON line_items (org_id, unit_price, created_at, id)

CREATE TABLE posts (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  author_id TEXT NOT NULL REFERENCES users(id),
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  published INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX posts_org_created ON posts (org_id, created_at, id)

CREATE INDEX posts_org_updated ON posts (org_id, updated_at, id)

CREATE INDEX posts_org_author ON posts (org_id, author_id, created_at, id)

CREATE INDEX posts_author ON posts (author_id)

CREATE INDEX posts_org_title ON posts (org_id, title, id)

CREATE INDEX posts_org_published ON posts (org_id, published, created_at, id)

CREATE TABLE comments (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  post_id TEXT NOT NULL REFERENCES posts(id),
  author_id TEXT NOT NULL REFERENCES users(id),
  text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX comments_org_created ON comments (org_id, created_at, id)

CREATE INDEX comments_org_updated ON comments (org_id, updated_at, id)

CREATE INDEX comments_org_post ON comments (org_id, post_id, created_at, id)

CREATE INDEX comments_post ON comments (post_id)

CREATE INDEX comments_org_author ON comments (org_id, author_id, created_at, id)

CREATE INDEX comments_author ON comments (author_id)

CREATE TABLE events (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL REFERENCES orgs(id),
  type TEXT NOT NULL,
  resource TEXT NOT NULL,
  resource_id TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT

CREATE INDEX events_org_created ON events (org_id, created_at, id)

CREATE INDEX events_org_updated ON events (org_id, updated_at, id)

CREATE INDEX events_org_type ON events (org_id, type, created_at, id)

CREATE INDEX events_org_resource ON events (org_id, resource, created_at, id)

CREATE INDEX events_org_resource_id ON events (org_id, resource_id, created_at, id)
