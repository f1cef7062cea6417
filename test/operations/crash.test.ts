import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'

const SCRIPT = join(import.meta.dir, '..', '..', 'scripts', 'crash-test.ts')

/** `npm run crash-test` (scripts/crash-test.ts), shortened: the 20-cycle figures are in docs/operations.md. */
describe('kill -9 under concurrent idempotent writers', () => {
  it('loses no acknowledged write, stores none twice, and leaves every record with its event', async () => {
    const run = Bun.spawn([process.execPath, SCRIPT, '--cycles', '3', '--writers', '8', '--json'], {
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [out, err, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ])
    // The script says why it failed (a server that would not start, a deadline passed) on stderr.
    if (code !== 0) console.error(err)
    const report: Record<string, unknown> = JSON.parse(out)
    expect(report).toMatchObject({ cycles: 3, lost: 0, duplicated: 0, withoutEvent: 0, integrity: 'ok' })
    expect(Number(report.acknowledged)).toBeGreaterThan(0)
    // The kills cut requests off mid-flight: what the keys and the retries are there for.
    expect(Number(report.inFlightAtKills)).toBeGreaterThan(0)
    expect(code).toBe(0)
  }, 60_000)
})
