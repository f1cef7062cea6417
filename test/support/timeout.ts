/**
 * Preloaded by bunfig.toml before every test file. Bun takes the per-test timeout from
 * `setDefaultTimeout` or `bun test --timeout`, not from a `[test] timeout` key, so it is set here:
 * each test file starts its own server and database, and on a busy 2-core machine argon2id
 * hashing and process start-up take far longer than Bun's default 5 s.
 */
import { setDefaultTimeout } from 'bun:test'

/** The longest a test may take unless it says otherwise. */
export const TEST_TIMEOUT_MS = 30_000

setDefaultTimeout(TEST_TIMEOUT_MS)
