/**
 * How the CLI learns the collections of the server it talks to (docs/cli.md, "How api learns the
 * server"): it asks for the version's OpenAPI document with the ETag of the copy it keeps, so an
 * unchanged document costs a 304; a changed one is read and kept; an unreachable server leaves it
 * the kept copy, so that completion and --help work offline.
 */
import { connectionFailure } from '../../shared/connection-failures.ts'
import { learnFromDocument, UnreadableDocument } from '../../shared/learn/from-openapi.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { Context } from '../context.ts'
import { apiErrorFrom, NetworkError } from '../errors.ts'
import { type Cached, readCached, writeCached } from './cache.ts'
import { SERVICE_COLLECTIONS, schemaOfLearned } from './schema.ts'

/** The server has no document the CLI can learn from: it is older than the CLI; exit 1. */
class OlderServer extends Error {
  override name = 'OlderServer'
}

type Asker = Pick<Context, 'io' | 'server' | 'profile' | 'prefix' | 'timeoutMs'>

/** The Schema of a kept copy; null when it no longer builds one (written by another release). */
function schemaOfCopy(copy: Cached | null): Schema | null {
  if (copy === null) return null
  try {
    return schemaOfLearned(copy.learned)
  } catch {
    return null
  }
}

/**
 * The collections of the context's server, for its API version: from the server (revalidating the
 * kept copy), else from the kept copy. Throws NetworkError when neither answers, OlderServer when
 * the server has no document to learn from, and the server's error for any other failure
 * without a copy.
 */
export async function learnSchema(ctx: Asker): Promise<Schema> {
  const { io, server, prefix } = ctx
  const version = prefix.split('/').pop()!
  const path = `${prefix}/openapi.json`
  const copy = readCached(io.env, version, server)
  const kept = schemaOfCopy(copy)
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (kept && copy?.etag) headers['If-None-Match'] = copy.etag
  let response: Response
  try {
    response = await io.fetch(`${server}${path}`, { headers, signal: AbortSignal.timeout(ctx.timeoutMs) })
  } catch (error) {
    if (kept) return kept
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${ctx.timeoutMs / 1000} s`
        : connectionFailure(error)
    throw new NetworkError(
      `could not reach ${server} (${reason}) to learn its collections, and profile ${ctx.profile} keeps no copy of them from an earlier run`,
    )
  }
  if (response.status === 304 && kept) return kept
  const older = `${server} has no API description at ${path} (the server is older than this CLI, which learns its collections from it); api request METHOD PATH still works`
  if (response.status === 404) throw new OlderServer(older)
  const text = await response.text()
  if (!response.ok) {
    if (kept) return kept
    let body: unknown = null
    try {
      body = JSON.parse(text)
    } catch {}
    throw apiErrorFrom(response.status, body)
  }
  let learned: Cached['learned']
  try {
    learned = learnFromDocument(JSON.parse(text), prefix, SERVICE_COLLECTIONS)
  } catch (error) {
    if (error instanceof UnreadableDocument || error instanceof SyntaxError)
      throw new OlderServer(
        `${server}'s API description at ${path} does not describe its collections as this CLI reads them (${error.message}); the server is older than this CLI`,
      )
    throw error
  }
  const schema = schemaOfLearned(learned)
  writeCached(io.env, version, { server, etag: response.headers.get('etag'), learned })
  return schema
}
