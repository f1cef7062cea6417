import { openSession } from './auth/session.ts'
import { serverUrl } from './config.ts'
import { UsageError } from './errors.ts'
import { ApiClient } from './http.ts'
import type { Io } from './io.ts'
import { chooseFormat, type Format } from './output.ts'

/** The API versions the CLI speaks; v2 is current, v1 deprecated (docs/api.md). */
export const API_VERSIONS = ['v2', 'v1'] as const
export type ApiVersion = (typeof API_VERSIONS)[number]

/**
 * What every command gets: its I/O, the server, the API version's path prefix, an authenticated
 * client and the output format.
 */
export interface Context {
  io: Io
  server: string
  /** `/api/v2`, or `/api/v1` with `--api-version v1`. */
  prefix: string
  format: Format
  /** The API client with the stored (or API_TOKEN) credentials; created on first use. */
  api: () => ApiClient
}

export function makeContext(io: Io, options: Record<string, unknown>): Context {
  const server = serverUrl(io.env)
  if (!URL.canParse(server)) throw new UsageError(`API_URL is not a URL: ${server}`)
  let format: Format
  try {
    format = chooseFormat(io, options.format)
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  const version = options.apiVersion === undefined ? 'v2' : String(options.apiVersion)
  if (!(API_VERSIONS as readonly string[]).includes(version))
    throw new UsageError(`--api-version must be one of ${API_VERSIONS.join(', ')}`)
  const timeout = options.timeout === undefined ? 30 : Number(options.timeout)
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError('--timeout takes a number of seconds')
  let client: ApiClient | undefined
  return {
    io,
    server,
    prefix: `/api/${version}`,
    format,
    api: () => {
      client ??= new ApiClient(io, server, openSession(io, server), {
        timeoutMs: timeout * 1000,
        maxRetries: 3,
      })
      return client
    },
  }
}
