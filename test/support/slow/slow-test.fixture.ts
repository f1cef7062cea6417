// Run only by test/timeout.test.ts, through `npm test -- <these files>`: a test past Bun's default 5 s.
import { expect, test } from 'bun:test'

test('a test that takes 5.5 s', async () => {
  await Bun.sleep(5_500)
  expect(true).toBe(true)
})
