/** `api --help`: besides the commands, the environment variables, exit statuses and documentation. */
import { describe, expect, it } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { EXIT } from '../../cli/errors.ts'
import { ROOT, runCli } from './harness.ts'

const env = { API_URL: 'https://api.example.com', XDG_CONFIG_HOME: '/nonexistent' }

/** The body of one `Title:` section of a help text. */
function section(help: string, title: string): string {
  const start = help.indexOf(`\n${title}:\n`)
  if (start === -1) throw new Error(`no "${title}:" section in:\n${help}`)
  const body = help.slice(start + title.length + 3)
  const end = body.indexOf('\n\n')
  return end === -1 ? body : body.slice(0, end)
}

/** Every `env.NAME` the CLI's sources read, but those of the desktop it opens a browser on. */
function variablesRead(): string[] {
  const names = new Set<string>()
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts'))
        for (const m of readFileSync(path, 'utf8').matchAll(/env\.([A-Z][A-Z0-9_]*)/g)) names.add(m[1]!)
    }
  }
  walk(join(ROOT, 'cli'))
  // HOME stands in for XDG_CONFIG_HOME's default; DISPLAY and WAYLAND_DISPLAY say whether a browser can open.
  for (const platform of ['HOME', 'DISPLAY', 'WAYLAND_DISPLAY']) names.delete(platform)
  return [...names].sort()
}

/** The variables named in the first column of a table (help's or the docs'). */
const namesIn = (text: string) =>
  [...new Set(text.match(/\b(?:API|XDG|NO|FORCE)_[A-Z_]+|\bCOLUMNS\b/g))].sort()

describe('api --help', () => {
  it('names every environment variable the CLI reads, as docs/cli.md does', async () => {
    const run = await runCli(['--help'], { env })
    expect(run.code).toBe(0)
    const variables = variablesRead()
    expect(variables).toContain('API_CA_CERT')
    const listed = section(run.stdout, 'Environment variables')
    expect(namesIn(listed)).toEqual(variables)
    const docs = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8')
    const configuration = docs.slice(docs.indexOf('## Configuration'), docs.indexOf('### Profiles'))
    const rows = configuration.split('\n').filter((line) => line.startsWith('| `'))
    expect(namesIn(rows.map((row) => row.split(' | ')[0]).join(' '))).toEqual(variables)
  })

  it('names every exit status, as docs/cli.md does', async () => {
    const run = await runCli(['--help'], { env })
    const listed = section(run.stdout, 'Exit statuses')
    const codes = Object.values(EXIT).map(String)
    expect(listed.split('\n').map((line) => line.trim().split(/\s+/)[0])).toEqual(codes)
    expect(listed).toMatch(/^ {2}3 +the server could not be reached/m)
    const docs = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8')
    const table = docs.slice(docs.indexOf('## Exit statuses'), docs.indexOf('## API versions'))
    expect([...table.matchAll(/^\| (\d+) \|/gm)].map((m) => m[1])).toEqual(codes)
  })

  it("names the documentation: docs/cli.md and the server's /docs", async () => {
    const run = await runCli(['--help'], { env })
    const listed = section(run.stdout, 'Documentation')
    expect(listed).toContain('docs/cli.md')
    expect(listed).toContain('https://api.example.com/docs')
    expect(run.requests).toHaveLength(0)
  })

  it('says in one line each how to get the help of a command and of a collection', async () => {
    const run = await runCli(['--help'], { env })
    expect(section(run.stdout, 'More help')).toMatch(/api COMMAND --help .*\n.*api list COLLECTION --help/)
    expect(run.stdout).not.toContain('$ api login --help')
  })

  it("leaves them out of a command's own help", async () => {
    const run = await runCli(['create', '--help'], { env })
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain('Environment variables:')
    expect(run.stdout).not.toContain('Exit statuses:')
  })
})
