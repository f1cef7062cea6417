// Run only by test/timeout.test.ts, after slow-test.fixture.ts: a later file's hook past Bun's default 5 s.
import { beforeAll, expect, test } from 'bun:test'

let ready = false
beforeAll(async () => {
  await Bun.sleep(5_500)
  ready = true
})

test('a test after a hook that takes 5.5 s', () => {
  expect(ready).toBe(true)
})
