/**
 * The copy of a server's collections the CLI keeps per profile and API version, beside the
 * profile's logins: `openapi-v2.json` in `$XDG_CONFIG_HOME/api/` for the default profile, in
 * `profiles/NAME/` for another. It holds the server it came from, the document's ETag (to
 * revalidate it with If-None-Match) and what was learned from it, never the document itself.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Learned } from '../../shared/learn/from-openapi.ts'
import { credentialsPath } from '../config.ts'

const CachedFile = Type.Object({
  server: Type.String(),
  etag: Type.Union([Type.String(), Type.Null()]),
  learned: Type.Object({
    resources: Type.Record(
      Type.String(),
      Type.Object({ fields: Type.Record(Type.String(), Type.Object({})) }),
    ),
    actions: Type.Record(
      Type.String(),
      Type.Array(Type.Object({ name: Type.String(), summary: Type.String() })),
    ),
  }),
})

/** What is kept of one server. */
export interface Cached {
  server: string
  etag: string | null
  learned: Learned
}

type Env = Record<string, string | undefined>

/** Where a profile keeps what it learned of its server's `version` (`v2`). */
export const cachePath = (env: Env, version: string) =>
  join(dirname(credentialsPath(env)), `openapi-${version}.json`)

/** The kept copy for `server`, or null when there is none, it is of another server, or unreadable. */
export function readCached(env: Env, version: string, server: string): Cached | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(cachePath(env, version), 'utf8'))
  } catch {
    return null
  }
  if (!Value.Check(CachedFile, parsed) || parsed.server !== server) return null
  // Checked above in outline; the declarations were written by this CLI, and one that no longer
  // builds a schema is dropped by the caller (cli/learn/learn.ts).
  return parsed as Static<typeof CachedFile> as Cached
}

/** Replaces the kept copy, atomically (a concurrent run reads the old copy or the new one). */
export function writeCached(env: Env, version: string, cached: Cached): void {
  const path = cachePath(env, version)
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const temp = `${path}.${process.pid}.tmp`
  writeFileSync(temp, `${JSON.stringify(cached)}\n`, { mode: 0o600 })
  renameSync(temp, path)
}
