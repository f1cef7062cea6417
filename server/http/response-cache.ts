import type { Principal } from '../auth/tokens.ts'
import type { ChangeSource } from '../store/store.ts'
import type { Representation } from './conditional.ts'
import type { ListFormat } from './tabular.ts'

/** Default bound of the bodies and keys kept (`serve --cache-mb`). */
export const DEFAULT_CACHE_MB = 16
/** What an entry costs beyond its key and body: the entry, its map slot, the tag and date strings. */
const ENTRY_OVERHEAD = 256

/** A GraphQL query's answer as Yoga serialized it: kept only when it was a 200 without `errors`. */
interface OperationAnswer {
  status: number
  contentType: string
  text: string
  /** Size of `text` in bytes, for Content-Length and the cache's bound. */
  bytes: number
}

interface Entry {
  stamp: number
  answer: Representation | OperationAnswer
  bytes: number
}

/**
 * Answers of record reads (collection GETs and GET by id) and of GraphQL queries, kept per
 * organization, the principal's read scopes, and the path with its query string as sent (for a
 * GraphQL query: its request, server/graphql/kept-answers.ts) (the body's `pagination.next` repeats
 * that query string, so two spellings of one query are two entries). Every entry carries the
 * organization's change stamp read before its data (`ChangeSource.stamp`); it answers only while
 * the stamp is still the same, so no answer is ever older than the last committed change, on any
 * replica. Revocation, role and scope checks run before the cache is asked. Bounded by bytes,
 * least recently used first out (docs/architecture.md, "Response cache").
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>()
  private bytes = 0
  /** The scopes part of keys, worked out once per principal (principals are cached per token). */
  private readonly scopeKeys = new WeakMap<Principal, string>()

  constructor(
    private readonly changes: ChangeSource,
    private readonly maxBytes: number = DEFAULT_CACHE_MB * 1024 * 1024,
    /** Told of every lookup, answered from memory (`hit`) or not: the metrics count them. */
    private readonly looked: (hit: boolean) => void = () => {},
  ) {}

  /**
   * The entry's key: organization, read scopes, the list format Accept picked (a list's CSV and its
   * JSON are two entries), path and query string (the API version is in the path).
   */
  keyOf(principal: Principal, url: URL, format: ListFormat = 'json'): string {
    const path = `${url.pathname}${url.search}`
    return `${this.principalKey(principal)}${format === 'json' ? path : `${format} ${path}`}`
  }

  /**
   * A GraphQL request's key: organization, read scopes, then `request`, what else shapes the
   * answer. It must not start with `/`, which REST's paths do.
   */
  operationKeyOf(principal: Principal, request: string): string {
    return `${this.principalKey(principal)}${request}`
  }

  /** The organization and read scopes, each followed by a line break. */
  private principalKey(principal: Principal): string {
    let scopes = this.scopeKeys.get(principal)
    if (scopes === undefined) {
      scopes = [...principal.scopes]
        .filter((scope) => scope.startsWith('read:'))
        .sort()
        .join(' ')
      this.scopeKeys.set(principal, scopes)
    }
    return `${principal.orgId}\n${scopes}\n`
  }

  /** The organization's stamp now; read it before reading what it vouches for. */
  stamp(orgId: string): number | Promise<number> {
    return this.changes.stamp(orgId)
  }

  /** Whether an answer is kept for `key`, whatever its stamp (not a lookup: `get` follows it or the route's does). */
  has(key: string): boolean {
    return this.entries.has(key)
  }

  /** The kept answer of a record read for `key` while `stamp` is still the one it was read under. */
  get(key: string, stamp: number): Representation | undefined {
    const answer = this.lookup(key, stamp)
    return answer !== undefined && 'tag' in answer ? answer : undefined
  }

  /** The kept answer of a GraphQL query for `key` while `stamp` is still the one it was read under. */
  operation(key: string, stamp: number): OperationAnswer | undefined {
    const answer = this.lookup(key, stamp)
    return answer !== undefined && 'contentType' in answer ? answer : undefined
  }

  private lookup(key: string, stamp: number): Representation | OperationAnswer | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined || entry.stamp !== stamp) {
      if (entry !== undefined) this.drop(key, entry)
      this.looked(false)
      return undefined
    }
    this.looked(true)
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.answer
  }

  /** Keeps `answer`, read after `stamp`; the least recently used entries make room. */
  keep(key: string, stamp: number, answer: Representation | OperationAnswer): void {
    const bytes = key.length + answer.bytes + ENTRY_OVERHEAD
    if (bytes > this.maxBytes / 8) return
    const old = this.entries.get(key)
    if (old !== undefined) this.drop(key, old)
    this.entries.set(key, { stamp, answer, bytes })
    this.bytes += bytes
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.drop(oldest, entry)
    }
  }

  /** Bytes held now (keys, bodies and a fixed allowance per entry). */
  size(): number {
    return this.bytes
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key)
    this.bytes -= entry.bytes
  }
}
