import { describe, expect, it } from 'bun:test'

/** `npm run crash-test` (scripts/crash-test.ts), shortened: the full 20-cycle figures are in docs/operations.md. */
describe('kill -9 under concurrent idempotent writers', () => {
  it('loses no acknowledged write, makes none twice, and leaves every record with its event', async () => {
    const run = Bun.spawn(
      [process.execPath, 'scripts/crash-test.ts', '--cycles', '3', '--writers', '8', '--json'],
      { stdout: 'pipe', stderr: 'pipe' },
    )
    const [out, err, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ])
    expect(err).toBe('')
    const report = JSON.parse(out) as Record<string, number | string>
    expect(report).toMatchObject({ cycles: 3, lost: 0, duplicated: 0, withoutEvent: 0, integrity: 'ok' })
    expect(report.acknowledged as number).toBeGreaterThan(100)
    expect(report.interrupted as number).toBeGreaterThan(0)
    expect(code).toBe(0)
  }, 60_000)
})
