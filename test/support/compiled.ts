import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ROOT } from '../admin/run.ts'

/** The executables of `npm run build` (scripts/build.ts), compiled into a new temporary directory. */
export function buildExecutables(prefix: string): { dir: string; bin: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const bin = join(dir, 'bin')
  const build = Bun.spawnSync([process.execPath, 'scripts/build.ts', '--outdir', bin], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (build.exitCode !== 0) throw new Error(`the build failed: ${build.stderr.toString()}`)
  return { dir, bin }
}

/**
 * Runs a compiled executable in `cwd` with no checkout around it: the system's PATH, `cwd` as HOME,
 * and only the environment given.
 */
export async function execCompiled(argv: string[], cwd: string, env: Record<string, string> = {}) {
  const child = Bun.spawn(argv, {
    cwd,
    env: { PATH: '/usr/bin:/bin', HOME: cwd, ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { status, stdout, stderr }
}
