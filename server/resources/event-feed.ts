import { badRequest } from '../../shared/errors.ts'
import { events } from '../../shared/resources/events.ts'
import { type Principal, requireScope } from '../auth/tokens.ts'
import { isDatabaseUnavailable } from '../store/availability.ts'
import type { EventFilter } from '../store/types.ts'
import type { EngineContext } from './context.ts'
import type { Entity } from './reads.ts'
import { visibleCollections } from './visibility.ts'

/** How often the log is checked for appends, in milliseconds. */
const EVENT_POLL_MS = 250
/** Events read per statement while catching up. */
const BATCH = 100
/** A waiting stream looks again at least this often, whatever the ticker says. */
const MAX_WAIT_MS = 30_000
const MAX_EVENT_TYPES = 50
/** How soon a stream looks again while the database cannot be reached. */
const UNAVAILABLE_RETRY_MS = 1_000

interface EventStreamOptions {
  /** Only events of these types (`order.created`); all when absent or empty. */
  types?: readonly string[] | null
  /** Resume after this event id: every later event of the organization, in order, none twice. */
  after?: string | null
}

/**
 * Live streams of an organization's event log, driven by the log itself: one ticker per process
 * checks the newest position every `pollMs` and wakes the streams, which read their organization's
 * events past their own position. Appends by other processes (admin commands, other instances on
 * the same file) are seen like our own, and a stream resumed with `after` misses nothing.
 */
export class EventFeed {
  private readonly waiters = new Set<() => void>()
  private timer: ReturnType<typeof setInterval> | null = null
  private seen = 0
  private closed = false

  constructor(
    private readonly ctx: EngineContext,
    private readonly pollMs = EVENT_POLL_MS,
  ) {}

  /**
   * Checks scope and options now (so errors surface before the first event), then streams the
   * events the principal may see: those about collections it may read. The stream ends,
   * completing cleanly, when the principal's token expires or the feed closes.
   */
  async open(principal: Principal, options: EventStreamOptions = {}): Promise<AsyncIterableIterator<Entity>> {
    requireScope(principal, events.scopes.read)
    const types = options.types ?? undefined
    if (types && types.length > MAX_EVENT_TYPES) {
      throw badRequest('Too many event types.', [{ field: 'types', message: `at most ${MAX_EVENT_TYPES}` }])
    }
    if (types?.some((t) => t.length === 0 || t.length > 100)) {
      throw badRequest('An event type is not valid.', [
        { field: 'types', message: 'each type has 1 to 100 characters' },
      ])
    }
    let start: number
    if (options.after != null) {
      const position = await this.ctx.store.events.position(options.after)
      if (!position || position.orgId !== principal.orgId) {
        throw badRequest('The after argument does not name an event.', [
          { field: 'after', message: `no event with id ${options.after.slice(0, 100)}` },
        ])
      }
      start = position.seq
    } else {
      start = await this.ctx.store.events.last()
    }
    const filter: EventFilter = {
      types,
      resources: visibleCollections(this.ctx.schema, principal) ?? undefined,
    }
    return new EventStream(this, this.ctx, principal, start, filter)
  }

  /** Resolves when the log may have grown, after `timeoutMs` at the latest, or when cancelled. */
  wait(timeoutMs: number): { promise: Promise<void>; cancel: () => void } {
    let cancel = () => {}
    const promise = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.waiters.delete(done)
        if (this.waiters.size === 0) this.stopTicker()
        resolve()
      }
      const timer = setTimeout(done, Math.max(0, Math.min(timeoutMs, MAX_WAIT_MS)))
      cancel = done
      if (this.closed) return done()
      this.waiters.add(done)
      this.startTicker()
    })
    return { promise, cancel }
  }

  get isClosed(): boolean {
    return this.closed
  }

  /** Ends every stream (they complete) and stops the ticker; for shutdown. */
  close(): void {
    this.closed = true
    for (const done of [...this.waiters]) done()
    this.stopTicker()
  }

  private startTicker(): void {
    if (this.timer) return
    this.timer = setInterval(() => void this.tick(), this.pollMs)
    this.ctx.store.events.last().then(
      (last) => {
        this.seen = last
      },
      (error) => this.failed(error),
    )
  }

  private stopTicker(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  /**
   * The database is closed (shutdown): the streams end rather than fail on every tick. One that
   * cannot be reached for now (a restart) ends nothing: the streams wait, and the ticks go on.
   */
  private failed(error: unknown): void {
    if (!isDatabaseUnavailable(error)) this.close()
  }

  private async tick(): Promise<void> {
    let last: number
    try {
      last = await this.ctx.store.events.last()
    } catch (error) {
      this.failed(error)
      return
    }
    if (last === this.seen) return
    this.seen = last
    for (const done of [...this.waiters]) done()
  }
}

/**
 * One subscriber's stream. A hand-written iterator rather than an async generator so that
 * `return()` (the client went away) ends a pending wait at once instead of after the next wake-up.
 */
class EventStream implements AsyncIterableIterator<Entity> {
  private buffer: Entity[] = []
  private done = false
  private cancelWait: (() => void) | null = null

  constructor(
    private readonly feed: EventFeed,
    private readonly ctx: EngineContext,
    private readonly principal: Principal,
    private position: number,
    private readonly filter: EventFilter,
  ) {}

  async next(): Promise<IteratorResult<Entity>> {
    const expiresAt = this.principal.expiresAt * 1000
    while (!this.done && !this.feed.isClosed) {
      if (this.ctx.clock() >= expiresAt) break
      const event = this.buffer.shift()
      if (event) return { value: event, done: false }
      let waitMs = expiresAt - this.ctx.clock()
      try {
        if (await this.read()) continue
      } catch (error) {
        // The database is away (a restart): the stream waits for it and goes on where it was.
        if (!isDatabaseUnavailable(error)) throw error
        waitMs = Math.min(waitMs, UNAVAILABLE_RETRY_MS)
      }
      const { promise, cancel } = this.feed.wait(waitMs)
      this.cancelWait = cancel
      await promise
      this.cancelWait = null
    }
    this.finish()
    return { value: undefined, done: true }
  }

  /** Reads the next events past the stream's position into the buffer; false when there are none yet. */
  private async read(): Promise<boolean> {
    const until = await this.ctx.store.events.last()
    if (until <= this.position) return false
    const range = { after: this.position, until }
    const rows = await this.ctx.store.events.after(this.principal.orgId, range, this.filter, BATCH)
    // Fewer than a batch: everything up to `until` has been looked at, including what the filter skips.
    this.position = rows.length === BATCH ? rows.at(-1)!.seq : until
    this.buffer = rows.map((row) => row.entity)
    return true
  }

  async return(): Promise<IteratorResult<Entity>> {
    this.finish()
    return { value: undefined, done: true }
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Entity> {
    return this
  }

  private finish(): void {
    this.done = true
    this.buffer = []
    this.cancelWait?.()
  }
}
