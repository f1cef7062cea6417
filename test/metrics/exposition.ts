import { existsSync } from 'node:fs'

/** Debian's `prometheus` package's checker (`apt-get install prometheus`); .ci/run installs it. */
const PROMTOOL = '/usr/bin/promtool'

/**
 * Whether the promtool checks run. Without promtool they are skipped with a message on a
 * developer's machine, but fail in CI (CI=true), where .ci/run installs it.
 */
export function promtoolAvailable(): boolean {
  if (existsSync(PROMTOOL)) return true
  if (process.env.CI)
    throw new Error(`${PROMTOOL} is missing in CI: .ci/run must install Debian's prometheus`)
  console.warn(`skipping the promtool checks: ${PROMTOOL} is not installed (apt-get install -y prometheus)`)
  return false
}

/** Runs promtool with `args` (and `stdin`); its exit code and everything it printed. */
export async function promtool(args: string[], stdin?: string): Promise<{ code: number; output: string }> {
  const child = Bun.spawn([PROMTOOL, ...args], {
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  return { code, output: stdout + stderr }
}

/** One sample of the text format: its name, its labels and its value. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** The samples of a scrape (comments left out); enough of the format for the tests' own checks. */
export function samplesOf(text: string): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line)
    if (!match) continue
    const labels: Record<string, string> = {}
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name!] = value!
    samples.push({ name: match[1]!, labels, value: Number(match[3]) })
  }
  return samples
}

/** The value of the sample named `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value),
  )?.value
}
