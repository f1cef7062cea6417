import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { ROOT, runOk } from '../admin/run.ts'
import { clientToken } from '../support/tokens.ts'

export interface ServerProcess {
  url: string
  dir: string
  db: string
  proc: Subprocess<'ignore', 'pipe', 'pipe'>
  /** Everything the server wrote so far, standard output and standard error. */
  output: () => string
  /** A confidential client of a fresh organization, made with the admin CLI. */
  client: (scope?: string) => Promise<{ orgId: string; clientId: string; clientSecret: string }>
  token: (client: { clientId: string; clientSecret: string }) => Promise<string>
  stop: () => Promise<number>
}

/** Starts `api-server serve` as a subprocess over a fresh database, capturing all it writes. */
export async function startServerProcess(args: string[] = []): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'api-ops-'))
  const db = join(dir, 'api.db')
  const proc = Bun.spawn([process.execPath, 'server/main.ts', 'serve', '--port', '0', '--db', db, ...args], {
    cwd: ROOT,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, API_DB: undefined, API_RATE_LIMIT: undefined, API_LOG_LEVEL: undefined },
  })
  let output = ''
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const reader = stream.getReader()
    const decoder = new TextDecoder()
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      output += decoder.decode(value, { stream: true })
    }
  }
  const drained = Promise.all([drain(proc.stdout), drain(proc.stderr)])
  const deadline = Date.now() + 20_000
  let url: string | undefined
  while (!url) {
    url = /listening on (http:\/\/\S+)/.exec(output)?.[1]
    if (Date.now() > deadline || proc.exitCode !== null)
      throw new Error(`the server did not start: ${output}`)
    await Bun.sleep(20)
  }
  let orgs = 0
  const server: ServerProcess = {
    url,
    dir,
    db,
    proc,
    output: () => output,
    client: async (scope) => {
      orgs += 1
      const org = JSON.parse(await runOk(['org', 'create', '--name', `Ops ${orgs}`, '--json'], db)).id
      const extra = scope ? ['--scope', scope] : []
      const created = JSON.parse(
        await runOk(['client', 'create', '--name', `ops ${orgs}`, '--org', org, '--json', ...extra], db),
      )
      return { orgId: org, clientId: created.client_id, clientSecret: created.client_secret }
    },
    token: ({ clientId, clientSecret }) => clientToken(url, { id: clientId, secret: clientSecret }),
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGTERM')
      const killer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
      const status = await proc.exited
      clearTimeout(killer)
      await drained
      return status
    },
  }
  return server
}

export function removeServerDir(server: ServerProcess): void {
  rmSync(server.dir, { recursive: true, force: true })
}
