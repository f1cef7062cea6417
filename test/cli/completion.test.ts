/**
 * `api completion bash|zsh|fish`: each script installed as docs/cli.md says, in the real shell, asked
 * what it offers after a command line. zsh and fish are Debian packages that .ci/run installs: on
 * a machine without them their tests are skipped, in CI (CI=true) they fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { exampleSchema } from '../../shared/resources/index.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import { BUN, CLI, removeTempDirs, spawnCli, tempDir } from './harness.ts'

/** The built-in example, as the server serves it without a schema file. */
const SCHEMA = exampleSchema()

/** The script lists the collections of the server it learns them from (cli/learn/). */
let server: TestServer
let env: Record<string, string>
beforeAll(async () => {
  server = await startTestServer()
  env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

/** A directory whose `api` runs the CLI from this checkout, for the shells' PATH. */
const bin = tempDir('api-bin-')
writeFileSync(join(bin, 'api'), `#!/bin/sh\nexec '${BUN}' '${CLI}' "$@"\n`)
chmodSync(join(bin, 'api'), 0o755)

const SHELL_PATHS = { bash: '/bin/bash', zsh: '/usr/bin/zsh', fish: '/usr/bin/fish' } as const
type Shell = keyof typeof SHELL_PATHS

function available(shell: Shell): boolean {
  if (existsSync(SHELL_PATHS[shell]) || process.env.CI) return true
  console.warn(
    `skipping the ${shell} completion test: ${SHELL_PATHS[shell]} is not installed (apt-get install -y ${shell})`,
  )
  return false
}

/** Printed after each line's completions. */
const END = '<end>'

/**
 * Each shell gets the lines as arguments and prints, for each, the words it would offer (one a
 * line), then END. The script comes from `api` itself, run by the shell as the docs say.
 */
const PROGRAMS: Record<Shell, string> = {
  // `source <(api completion bash)`, then the completion function bash's `complete` calls on TAB,
  // with the words bash splits the line into.
  bash: `source <(api completion bash)
for line in "$@"; do
  read -ra COMP_WORDS <<< "$line"
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _api
  printf '%s\\n' "\${COMPREPLY[@]}" '${END}'
done`,
  // compsys only runs inside the line editor of an interactive shell: this drives one on a
  // pseudo-terminal (zsh/zpty), types each line and TAB, bound to a widget that completes, and
  // captures every match compsys adds by wrapping compadd. The matches go to a file, away from
  // the terminal's redraws; the widget then prints a marker this side waits for.
  zsh: `zmodload zsh/zpty || exit 1
out=$(mktemp) || exit 1
zpty shell zsh -f -i || exit 1
zpty -w shell "PS1='' PS2=''; autoload -U compinit && compinit -u -D; unsetopt autolist listambiguous; setopt nobeep"
zpty -w shell "source <(api completion zsh)"
zpty -w shell "compadd() { local -a hits; builtin compadd -A hits \\"\\$@\\"; (( \\$#hits )) && print -rl -- \\$hits >> \${(q)out}; builtin compadd \\"\\$@\\"; }"
# The marker is written split in two so that the terminal echoing this line does not show it.
zpty -w shell "capture() { zle complete-word; print -n '<comple''ted>'; BUFFER=''; }; zle -N capture; bindkey '^I' capture"
for line in "$@"; do
  : > $out
  zpty -n -w shell "$line"$'\\t'
  zpty -r -m shell reply '*<completed>*' || { print -u2 "zsh did not complete: $line"; exit 1 }
  sort -u $out
  print -r -- '${END}'
done
zpty -d shell
rm -f $out`,
  // fish loads $XDG_CONFIG_HOME/fish/completions/api.fish, where the docs put it, and
  // \`complete -C\` prints what TAB would offer (a word, a tab and its description).
  fish: `for line in $argv
  complete -C $line | string replace -r '\\t.*' ''
  echo '${END}'
end`,
}

/** What `shell` offers after each line (ending in a space: a new word), sorted. */
async function complete(shell: Shell, lines: string[]): Promise<string[][]> {
  if (!existsSync(SHELL_PATHS[shell]))
    throw new Error(`${SHELL_PATHS[shell]} is missing: .ci/run installs Debian's ${shell}`)
  const home = tempDir()
  if (shell === 'fish') {
    const run = await spawnCli(['completion', 'fish'], env)
    expect(run.code).toBe(0)
    mkdirSync(join(home, 'fish/completions'), { recursive: true })
    writeFileSync(join(home, 'fish/completions/api.fish'), run.stdout)
  }
  const argv = shell === 'fish' ? ['-c', PROGRAMS.fish, ...lines] : ['-c', PROGRAMS[shell], shell, ...lines]
  const child = Bun.spawn([SHELL_PATHS[shell], ...(shell === 'zsh' ? ['-f'] : []), ...argv], {
    cwd: home,
    env: {
      API_URL: server.url,
      PATH: `${bin}:${process.env.PATH}`,
      HOME: home,
      XDG_CONFIG_HOME: home,
      XDG_DATA_HOME: home,
      TERM: 'dumb',
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: 20_000,
    killSignal: 'SIGKILL',
  })
  const [out, err, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ])
  if (code !== 0) throw new Error(`${shell} exited with ${code}: ${err}`)
  const answers = out.split(`${END}\n`).slice(0, -1)
  expect(answers).toHaveLength(lines.length)
  return answers.map((answer) => answer.split('\n').filter(Boolean).sort())
}

const COLLECTIONS = SCHEMA.resources.map((r) => r.name).sort()

/** A command line and, sorted, what TAB offers after it in every shell. */
const CASES: [string, string[]][] = [
  ['api li', ['list']],
  ['api co', ['completion', 'config']],
  ['api list ord', ['orders']],
  ['api get ', COLLECTIONS],
  ['api list orders --st', ['--status']],
  ['api delete orders --amount-', ['--amount-gte', '--amount-lte']],
  ['api delete posts --q', ['--q']],
  ['api list users --st', []],
  ['api list posts/pst_1/comments --author', ['--author-id']],
  ['api list posts/pst_1 --tag', []],
  ['api --profile staging li', ['list']],
  ['api --profile staging list ord', ['orders']],
  ['api --profile staging list orders --max', ['--max-items']],
  ['api list orders --ver', ['--verbose', '--version']],
  ['api update orders ord_1 --if', ['--if-match']],
  ['api completion ', ['bash', 'fish', 'zsh']],
  ['api config ', ['get', 'list', 'set', 'unset']],
]

describe('api completion', () => {
  it('lists every collection, line-items among them', () => {
    expect(COLLECTIONS).toContain('line-items')
    expect(COLLECTIONS).toContain('orders')
  })

  for (const shell of ['bash', 'zsh', 'fish'] as const) {
    it.skipIf(!available(shell))(
      `prints a script that ${shell} completes commands, collections, options and filters with`,
      async () => {
        const answers = await complete(
          shell,
          CASES.map(([line]) => line),
        )
        expect(CASES.map(([line], i) => [line, answers[i]])).toEqual(CASES)
      },
    )
  }

  it('refuses another shell (exit 2)', async () => {
    const run = await spawnCli(['completion', 'csh'], env)
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'api: api completion takes bash, zsh, fish (not "csh"; did you mean zsh?)\n',
    })
  })

  it('suggests the shell meant for a slip, and none for a word far from all three (exit 2)', async () => {
    const slip = await spawnCli(['completion', 'bsh'], env)
    expect(slip).toEqual({
      code: 2,
      stdout: '',
      stderr: 'api: api completion takes bash, zsh, fish (not "bsh"; did you mean bash?)\n',
    })
    const far = await spawnCli(['completion', 'powershell'], env)
    expect(far.code).toBe(2)
    expect(far.stderr).toBe('api: api completion takes bash, zsh, fish (not "powershell")\n')
  })
})
