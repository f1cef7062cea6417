-- Integer fields hold any safe integer (up to 2^53 - 1), as SQLite's 64-bit INTEGER does: on
-- PostgreSQL they are bigint, not the 32-bit integer the first schema gave them (a price of
-- 3,000,000,000 failed there and succeeded on SQLite). Bun.sql answers int8 as a string; the store
-- reads integer fields back as numbers (server/store/columns.ts).

ALTER TABLE products ALTER COLUMN price TYPE bigint

ALTER TABLE orders ALTER COLUMN amount TYPE bigint

ALTER TABLE line_items ALTER COLUMN quantity TYPE bigint, ALTER COLUMN unit_price TYPE bigint
