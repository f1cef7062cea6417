import { isDatabaseUnavailable } from '../store/availability.ts'
import { EXPIRING_KINDS, type Store } from '../store/store.ts'
import type { Logger } from './logger.ts'

export interface HousekeepingOptions {
  /** Between the end of one run and the start of the next. */
  everyMs: number
  /** From start to the first run: soon, but not in the way of start-up. */
  firstAfterMs: number
  /** At most this many rows of each kind per run; what is left waits for the next run. */
  limit: number
}

const HOUSEKEEPING_DEFAULTS: HousekeepingOptions = {
  everyMs: 60_000,
  firstAfterMs: 1_000,
  limit: 1_000,
}

/**
 * One run: at most `limit` expired rows of each kind, each kind one statement (its own short
 * transaction, so the writer lock is never held long). A kind that fails is logged and skipped;
 * the others still run. A database that cannot be reached ends the run, unlogged: the store
 * reports the outage once (server/store/availability.ts). Returns how many rows of each kind were
 * deleted.
 */
async function runHousekeeping(
  store: Store,
  now: number,
  limit: number,
  logger: Logger,
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {}
  for (const kind of EXPIRING_KINDS) {
    try {
      const count = await store.purgeExpired(kind, now, limit)
      if (count > 0) deleted[kind] = count
    } catch (error) {
      if (isDatabaseUnavailable(error)) break
      logger.error(error, { job: 'housekeeping', kind })
    }
  }
  return deleted
}

/**
 * Runs housekeeping on a timer until stopped. The timer is unref'd: it never keeps the process
 * alive. Logs one line per run that deleted something: counts per kind, never row contents.
 */
export function startHousekeeping(
  store: Store,
  logger: Logger,
  clock: () => number,
  options: Partial<HousekeepingOptions> = {},
): { stop: () => void } {
  const { everyMs, firstAfterMs, limit } = { ...HOUSEKEEPING_DEFAULTS, ...options }
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  const schedule = (ms: number) => {
    if (stopped) return
    timer = setTimeout(run, ms)
    timer.unref()
  }
  const run = async () => {
    try {
      const started = clock()
      const deleted = await runHousekeeping(store, started, limit, logger)
      if (Object.keys(deleted).length > 0)
        logger.log('info', 'housekeeping', { deleted, durationMs: clock() - started })
    } catch (error) {
      if (!isDatabaseUnavailable(error)) logger.error(error, { job: 'housekeeping' })
    }
    schedule(everyMs)
  }
  schedule(firstAfterMs)
  return {
    stop: () => {
      stopped = true
      clearTimeout(timer)
    },
  }
}
