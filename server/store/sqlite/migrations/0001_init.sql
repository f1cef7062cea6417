-- Statements are separated by blank lines (bun-sqlite-migrations runs one statement per block).
-- Timestamps are ISO 8601 UTC strings with milliseconds, so they sort as text.
-- Indexes: (org_id, created_at, id) serves the default sort; (org_id, col, id) each sort field
-- (the unique (org_id, email) and (org_id, sku) indexes serve those two sorts);
-- (org_id, col, created_at, id) each equality filter with the default sort.
-- Full-text search: external-content FTS5 tables over the searchable fields, kept in step by
-- triggers, so the index changes in the same transaction as the row.
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

CREATE UNIQUE INDEX users_org_email_unique ON users (org_id, email)

CREATE INDEX users_org_created ON users (org_id, created_at, id)

CREATE INDEX users_org_updated ON users (org_id, updated_at, id)

CREATE INDEX users_org_name_sort ON users (org_id, name, id)

CREATE INDEX users_org_role_sort ON users (org_id, role, id)

CREATE INDEX users_org_email ON users (org_id, email, created_at, id)

CREATE INDEX users_org_role ON users (org_id, role, created_at, id)

CREATE VIRTUAL TABLE users_fts USING fts5(name, email, content='users', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')

CREATE TRIGGER users_fts_insert AFTER INSERT ON users BEGIN
  INSERT INTO users_fts (rowid, name, email) VALUES (new.rowid, new.name, new.email);
END

CREATE TRIGGER users_fts_delete AFTER DELETE ON users BEGIN
  INSERT INTO users_fts (users_fts, rowid, name, email) VALUES ('delete', old.rowid, old.name, old.email);
END

CREATE TRIGGER users_fts_update AFTER UPDATE ON users BEGIN
  INSERT INTO users_fts (users_fts, rowid, name, email) VALUES ('delete', old.rowid, old.name, old.email);
  INSERT INTO users_fts (rowid, name, email) VALUES (new.rowid, new.name, new.email);
END

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

CREATE INDEX addresses_org_city_sort ON addresses (org_id, city, id)

CREATE INDEX addresses_org_country_sort ON addresses (org_id, country, id)

CREATE INDEX addresses_org_user_id ON addresses (org_id, user_id, created_at, id)

CREATE INDEX addresses_org_city ON addresses (org_id, city, created_at, id)

CREATE INDEX addresses_org_postal_code ON addresses (org_id, postal_code, created_at, id)

CREATE INDEX addresses_org_country ON addresses (org_id, country, created_at, id)

CREATE INDEX addresses_user_id_fk ON addresses (user_id)

CREATE VIRTUAL TABLE addresses_fts USING fts5(line1, city, content='addresses', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')

CREATE TRIGGER addresses_fts_insert AFTER INSERT ON addresses BEGIN
  INSERT INTO addresses_fts (rowid, line1, city) VALUES (new.rowid, new.line1, new.city);
END

CREATE TRIGGER addresses_fts_delete AFTER DELETE ON addresses BEGIN
  INSERT INTO addresses_fts (addresses_fts, rowid, line1, city) VALUES ('delete', old.rowid, old.line1, old.city);
END

CREATE TRIGGER addresses_fts_update AFTER UPDATE ON addresses BEGIN
  INSERT INTO addresses_fts (addresses_fts, rowid, line1, city) VALUES ('delete', old.rowid, old.line1, old.city);
  INSERT INTO addresses_fts (rowid, line1, city) VALUES (new.rowid, new.line1, new.city);
END

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

CREATE UNIQUE INDEX products_org_sku_unique ON products (org_id, sku)

CREATE INDEX products_org_created ON products (org_id, created_at, id)

CREATE INDEX products_org_updated ON products (org_id, updated_at, id)

CREATE INDEX products_org_name_sort ON products (org_id, name, id)

CREATE INDEX products_org_price_sort ON products (org_id, price, id)

CREATE INDEX products_org_sku ON products (org_id, sku, created_at, id)

CREATE INDEX products_org_price ON products (org_id, price, created_at, id)

CREATE INDEX products_org_currency ON products (org_id, currency, created_at, id)

CREATE INDEX products_org_active ON products (org_id, active, created_at, id)

CREATE VIRTUAL TABLE products_fts USING fts5(name, sku, description, content='products', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')

CREATE TRIGGER products_fts_insert AFTER INSERT ON products BEGIN
  INSERT INTO products_fts (rowid, name, sku, description) VALUES (new.rowid, new.name, new.sku, new.description);
END

CREATE TRIGGER products_fts_delete AFTER DELETE ON products BEGIN
  INSERT INTO products_fts (products_fts, rowid, name, sku, description) VALUES ('delete', old.rowid, old.name, old.sku, old.description);
END

CREATE TRIGGER products_fts_update AFTER UPDATE ON products BEGIN
  INSERT INTO products_fts (products_fts, rowid, name, sku, description) VALUES ('delete', old.rowid, old.name, old.sku, old.description);
  INSERT INTO products_fts (rowid, name, sku, description) VALUES (new.rowid, new.name, new.sku, new.description);
END

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

CREATE INDEX orders_org_status_sort ON orders (org_id, status, id)

CREATE INDEX orders_org_amount_sort ON orders (org_id, amount, id)

CREATE INDEX orders_org_user_id ON orders (org_id, user_id, created_at, id)

CREATE INDEX orders_org_status ON orders (org_id, status, created_at, id)

CREATE INDEX orders_org_amount ON orders (org_id, amount, created_at, id)

CREATE INDEX orders_org_currency ON orders (org_id, currency, created_at, id)

CREATE INDEX orders_user_id_fk ON orders (user_id)

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

CREATE INDEX line_items_org_quantity_sort ON line_items (org_id, quantity, id)

CREATE INDEX line_items_org_unit_price_sort ON line_items (org_id, unit_price, id)

CREATE INDEX line_items_org_order_id ON line_items (org_id, order_id, created_at, id)

CREATE INDEX line_items_org_product_id ON line_items (org_id, product_id, created_at, id)

CREATE INDEX line_items_org_quantity ON line_items (org_id, quantity, created_at, id)

CREATE INDEX line_items_org_unit_price ON line_items (org_id, unit_price, created_at, id)

CREATE INDEX line_items_order_id_fk ON line_items (order_id)

CREATE INDEX line_items_product_id_fk ON line_items (product_id)

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

CREATE INDEX posts_org_title_sort ON posts (org_id, title, id)

CREATE INDEX posts_org_author_id ON posts (org_id, author_id, created_at, id)

CREATE INDEX posts_org_published ON posts (org_id, published, created_at, id)

CREATE INDEX posts_author_id_fk ON posts (author_id)

CREATE VIRTUAL TABLE posts_fts USING fts5(title, body, content='posts', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')

CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN
  INSERT INTO posts_fts (rowid, title, body) VALUES (new.rowid, new.title, new.body);
END

CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN
  INSERT INTO posts_fts (posts_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
END

CREATE TRIGGER posts_fts_update AFTER UPDATE ON posts BEGIN
  INSERT INTO posts_fts (posts_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
  INSERT INTO posts_fts (rowid, title, body) VALUES (new.rowid, new.title, new.body);
END

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

CREATE INDEX comments_org_post_id ON comments (org_id, post_id, created_at, id)

CREATE INDEX comments_org_author_id ON comments (org_id, author_id, created_at, id)

CREATE INDEX comments_post_id_fk ON comments (post_id)

CREATE INDEX comments_author_id_fk ON comments (author_id)

CREATE VIRTUAL TABLE comments_fts USING fts5(text, content='comments', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')

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

CREATE INDEX events_org_type_sort ON events (org_id, type, id)

CREATE INDEX events_org_type ON events (org_id, type, created_at, id)

CREATE INDEX events_org_resource ON events (org_id, resource, created_at, id)

CREATE INDEX events_org_resource_id ON events (org_id, resource_id, created_at, id)
