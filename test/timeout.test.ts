import { describe, expect, it } from 'bun:test'

const ROOT = new URL('..', import.meta.url).pathname

describe('npm test on a busy machine', () => {
  // Bun's default is 5 s per test and hook. Each test file here starts servers and hashes passwords,
  // which on a loaded 2-core machine can take longer; `npm test` raises the limit on the command line,
  // the one place Bun reads it for every file (a bunfig key is ignored, a preload's
  // setDefaultTimeout reaches only the first file).
  it('lets a test and a later file’s hook run past Bun’s default 5 s', async () => {
    const run = Bun.spawn(
      [
        'npm',
        'test',
        '--silent',
        '--',
        './test/support/slow/slow-test.fixture.ts',
        './test/support/slow/slow-hook.fixture.ts',
      ],
      { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' },
    )
    const [code, out, err] = await Promise.all([
      run.exited,
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
    ])
    const output = out + err
    expect(output).toContain('2 pass')
    expect(output).toContain('0 fail')
    expect(code).toBe(0)
  }, 60_000)
})
