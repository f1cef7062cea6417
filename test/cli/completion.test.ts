/** `api completion bash|zsh|fish`: commands, options, collections and each collection's filters. */
import { afterAll, describe, expect, it } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { removeTempDirs, spawnCli, tempDir } from './harness.ts'

const env = { XDG_CONFIG_HOME: tempDir() }
afterAll(removeTempDirs)

/** What bash offers after `line` (ending in a space: a new word), with the script api printed. */
async function complete(script: string, line: string): Promise<string[]> {
  const program = `source "$1"
read -ra COMP_WORDS <<< "$2"
[[ $2 == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
_api
printf '%s\\n' "\${COMPREPLY[@]}"`
  const child = Bun.spawn(['bash', '-c', program, 'bash', script, line], { stdout: 'pipe', stderr: 'pipe' })
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited])
  if (code !== 0) throw new Error(await new Response(child.stderr).text())
  return out.split('\n').filter(Boolean)
}

describe('api completion bash', () => {
  const dir = tempDir()
  const script = join(dir, 'api.bash')

  it('prints a script that bash completes commands, collections, options and filters with', async () => {
    const run = await spawnCli(['completion', 'bash'], env)
    expect(run.code).toBe(0)
    writeFileSync(script, run.stdout)
    expect(await complete(script, 'api li')).toEqual(['list'])
    expect(await complete(script, 'api co')).toEqual(['config', 'completion'])
    expect(await complete(script, 'api list ord')).toEqual(['orders'])
    expect(await complete(script, 'api get ')).toContain('line-items')
    expect(await complete(script, 'api list orders --st')).toEqual(['--status'])
    expect(await complete(script, 'api delete orders --amount-')).toEqual(['--amount-gte', '--amount-lte'])
    expect(await complete(script, 'api list users --st')).toEqual([])
    expect(await complete(script, 'api list posts/pst_1/comments --author')).toEqual(['--author-id'])
    expect(await complete(script, 'api --profile staging list orders --max')).toEqual(['--max-items'])
    expect(await complete(script, 'api update orders ord_1 --if')).toEqual(['--if-match'])
    expect(await complete(script, 'api completion ')).toEqual(['bash', 'zsh', 'fish'])
    expect(await complete(script, 'api config ')).toEqual(['get', 'set', 'list'])
  })
})

describe('api completion zsh and fish', () => {
  it('prints a zsh script that runs the same completion through bashcompinit', async () => {
    const run = await spawnCli(['completion', 'zsh'], env)
    expect(run.code).toBe(0)
    expect(run.stdout).toStartWith('#compdef api\n')
    expect(run.stdout).toContain('bashcompinit')
    expect(run.stdout).toContain('complete -o default -F _api api')
  })

  it('prints fish completions for commands, collections and each collection’s filters', async () => {
    const run = await spawnCli(['completion', 'fish'], env)
    expect(run.code).toBe(0)
    const lines = run.stdout.split('\n')
    expect(lines).toContain(
      "complete -c api -n __fish_use_subcommand -a list -d 'List records; filters come from the collection (api list orders --help)'",
    )
    expect(lines).toContain(
      "complete -c api -n '__fish_seen_subcommand_from list delete; and __fish_seen_subcommand_from orders' -l status",
    )
    expect(lines).toContain("complete -c api -n '__fish_seen_subcommand_from update' -l if-match")
    expect(lines.some((l) => l.includes("-a 'users addresses products orders"))).toBe(true)
  })

  it('refuses another shell (exit 2)', async () => {
    const run = await spawnCli(['completion', 'tcsh'], env)
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr: 'api: api completion takes bash, zsh, fish (not "tcsh")\n',
    })
  })
})
