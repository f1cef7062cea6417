import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

const DEFAULT_SERVER = 'http://127.0.0.1:8080'

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
function configDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME ?? '.', '.config')
  return join(base, 'api')
}

/** A profile's name: letters, digits, `-` and `_`, as it becomes a directory name. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

/** The profile in use: `--profile` (placed in API_PROFILE by the context), else `default`. */
const profileOf = (env: Record<string, string | undefined>) => env.API_PROFILE || 'default'

/** The default profile's logins are in `credentials.json`; another's in `profiles/NAME/`. */
export function credentialsPath(env: Record<string, string | undefined>): string {
  const profile = profileOf(env)
  return profile === 'default'
    ? join(configDir(env), 'credentials.json')
    : join(configDir(env), 'profiles', profile, 'credentials.json')
}

/** The settings a profile may have (`api config set KEY VALUE`). */
export const SETTINGS = {
  url: 'the server (API_URL wins when set)',
  format: 'json, ndjson or table (--format wins)',
  timeout: 'seconds per attempt of a request (--timeout wins)',
  'api-version': 'v2 or v1 (--api-version wins)',
} as const
export type Setting = keyof typeof SETTINGS

const SettingsFile = Type.Object({
  profiles: Type.Record(Type.String(), Type.Record(Type.String(), Type.String())),
})
type SettingsFile = Static<typeof SettingsFile>

export const settingsPath = (env: Record<string, string | undefined>) => join(configDir(env), 'config.json')

/** Every profile's settings; a file that is not ours reads as empty, as credentials do. */
export function readSettings(env: Record<string, string | undefined>): SettingsFile {
  try {
    const parsed: unknown = JSON.parse(readFileSync(settingsPath(env), 'utf8'))
    if (Value.Check(SettingsFile, parsed)) return parsed
  } catch {}
  return { profiles: {} }
}

/** The settings of the profile in use (empty for a profile never configured). */
export const profileSettings = (env: Record<string, string | undefined>): Record<string, string> =>
  readSettings(env).profiles[profileOf(env)] ?? {}

/** Sets (or, with null, removes) one setting of the profile in use. */
export function writeSetting(env: Record<string, string | undefined>, key: Setting, value: string | null) {
  const file = readSettings(env)
  const profile = { ...file.profiles[profileOf(env)] }
  if (value === null) delete profile[key]
  else profile[key] = value
  file.profiles[profileOf(env)] = profile
  writeAtomically(env, settingsPath(env), file)
}

/** The server the CLI talks to: `API_URL`, else the profile's url, else the local default; no trailing slash. */
export function serverUrl(env: Record<string, string | undefined>): string {
  return (env.API_URL || profileSettings(env).url || DEFAULT_SERVER).replace(/\/+$/, '')
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

/** Writes atomically with mode 0600, in 0700 directories. */
function writeAtomically(env: Record<string, string | undefined>, path: string, file: unknown): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  // mkdir leaves the mode of a directory that already existed as it was.
  for (let dir = dirname(path); dir.startsWith(configDir(env)); dir = dirname(dir)) chmodSync(dir, 0o700)
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temp, 0o600)
  renameSync(temp, path)
}

const writeAll = (env: Record<string, string | undefined>, file: CredentialsFile) =>
  writeAtomically(env, credentialsPath(env), file)

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
