import type { Schema } from '../shared/schema/schema.ts'
import { openSession } from './auth/session.ts'
import { PROFILE_NAME, profileSettings, readSettings, serverUrl } from './config.ts'
import { UsageError } from './errors.ts'
import { ApiClient } from './http.ts'
import type { Io } from './io.ts'
import { chooseFormat, type Format } from './output.ts'
import { verboseFetch } from './verbose.ts'

/** The API versions the CLI speaks; v2 is current, v1 deprecated (docs/api.md). */
export const API_VERSIONS = ['v2', 'v1'] as const

/**
 * What every command gets: its I/O, the server, the API version's path prefix, an authenticated
 * client and the output format.
 */
export interface Context {
  /** Its environment names the profile in use (API_PROFILE), which picks the server and login. */
  io: Io
  profile: string
  server: string
  /** `/api/v2`, or `/api/v1` with `--api-version v1`. */
  prefix: string
  format: Format
  /** `--format csv`: the server's CSV, written as it comes (`api list` only). */
  csv: boolean
  /** The API client with the stored (or API_TOKEN) credentials; created on first use. */
  api: () => ApiClient
  /** How long one attempt of a request may take. */
  timeoutMs: number
  /**
   * The collections the server serves, learned from its OpenAPI document (cli/learn/); none for
   * a command that does not name one.
   */
  schema: Schema
}

/**
 * The context of one command. Options win over the profile's settings (`api config set`), which
 * win over the defaults; `profileMayBeNew` lets `api config` name a profile not yet configured.
 */
export function makeContext(given: Io, options: Record<string, unknown>, schema: Schema): Context {
  const profile = options.profile === undefined ? given.env.API_PROFILE || 'default' : String(options.profile)
  if (!PROFILE_NAME.test(profile))
    throw new UsageError(`profile names are letters, digits, - and _ (not "${profile}")`)
  let io: Io = { ...given, env: { ...given.env, API_PROFILE: profile } }
  if (profile !== 'default' && !options.profileMayBeNew && !(profile in readSettings(io.env).profiles))
    throw new UsageError(`no profile "${profile}"; create it: api config set url URL --profile ${profile}`)
  if (options.verbose) io = { ...io, fetch: verboseFetch(io.fetch, io.stderr) }
  const settings = profileSettings(io.env)
  const server = serverUrl(io.env)
  if (!URL.canParse(server)) throw new UsageError(`API_URL is not a URL: ${server}`)
  let format: Format
  // CSV comes from the server, for `api list` alone (main.ts refuses it elsewhere).
  const csv = options.format === 'csv'
  try {
    format = csv ? 'json' : chooseFormat(io, options.format ?? settings.format)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const version = String(options.apiVersion ?? settings['api-version'] ?? 'v2')
  if (!(API_VERSIONS as readonly string[]).includes(version))
    throw new UsageError(`--api-version must be one of ${API_VERSIONS.join(', ')}`)
  const timeout = Number(options.timeout ?? settings.timeout ?? 30)
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError('--timeout takes a number of seconds')
  let client: ApiClient | undefined
  return {
    io,
    profile,
    server,
    prefix: `/api/${version}`,
    format,
    csv,
    timeoutMs: timeout * 1000,
    schema,
    api: () => {
      client ??= new ApiClient(io, server, openSession(io, server), {
        timeoutMs: timeout * 1000,
        maxRetries: 3,
      })
      return client
    },
  }
}
