import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

export const DEFAULT_SERVER = 'http://127.0.0.1:8080'

/** What `api login` keeps for one server. */
export const StoredLogin = Type.Object({
  kind: Type.Union([Type.Literal('device'), Type.Literal('web'), Type.Literal('client_credentials')]),
  clientId: Type.String(),
  /** Client credentials only: kept (in the 0600 file) to fetch a new token when this one expires. */
  clientSecret: Type.Optional(Type.String()),
  accessToken: Type.String(),
  refreshToken: Type.Optional(Type.String()),
  /** Milliseconds since the epoch. */
  expiresAt: Type.Number(),
  scope: Type.String(),
})
export type StoredLogin = Static<typeof StoredLogin>

const CredentialsFile = Type.Object({ servers: Type.Record(Type.String(), StoredLogin) })
type CredentialsFile = Static<typeof CredentialsFile>

/** `$XDG_CONFIG_HOME/api`, or `~/.config/api` (contract). */
export function configDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME ?? '.', '.config')
  return join(base, 'api')
}

export const credentialsPath = (env: Record<string, string | undefined>) =>
  join(configDir(env), 'credentials.json')

/** The server the CLI talks to: `API_URL`, else the local default; no trailing slash. */
export function serverUrl(env: Record<string, string | undefined>): string {
  return (env.API_URL || DEFAULT_SERVER).replace(/\/+$/, '')
}

function readAll(env: Record<string, string | undefined>): CredentialsFile {
  let text: string
  try {
    text = readFileSync(credentialsPath(env), 'utf8')
  } catch {
    return { servers: {} }
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = null
  }
  // A file we cannot read as ours (truncated, hand-edited) is treated as empty rather than trusted.
  return Value.Check(CredentialsFile, parsed) ? parsed : { servers: {} }
}

/** Writes atomically with mode 0600, in a 0700 directory. */
function writeAll(env: Record<string, string | undefined>, file: CredentialsFile): void {
  const dir = configDir(env)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  // mkdir leaves the mode of a directory that already existed as it was.
  chmodSync(dir, 0o700)
  const path = credentialsPath(env)
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temp, 0o600)
  renameSync(temp, path)
}

export function loadLogin(env: Record<string, string | undefined>, server: string): StoredLogin | null {
  return readAll(env).servers[server] ?? null
}

export function saveLogin(env: Record<string, string | undefined>, server: string, login: StoredLogin): void {
  const file = readAll(env)
  file.servers[server] = login
  writeAll(env, file)
}

export function deleteLogin(env: Record<string, string | undefined>, server: string): boolean {
  const file = readAll(env)
  if (!(server in file.servers)) return false
  delete file.servers[server]
  if (Object.keys(file.servers).length === 0) rmSync(credentialsPath(env), { force: true })
  else writeAll(env, file)
  return true
}
