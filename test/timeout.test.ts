import { describe, expect, it } from 'bun:test'
import { TEST_TIMEOUT_MS } from './support/timeout.ts'

describe('the suite on a busy machine', () => {
  // Bun's own default is 5 s: a test that outlives it passes only when the preload's timeout holds.
  it('lets a test run past Bun’s default 5 s timeout', async () => {
    const started = Date.now()
    await Bun.sleep(5_500)
    expect(Date.now() - started).toBeGreaterThanOrEqual(5_500)
    expect(TEST_TIMEOUT_MS).toBeGreaterThan(5_500)
  })
})
