/** What an import has done so far. */
export interface ImportTally {
  /** Records the server created in this run. */
  created: number
  /** Records of chunks an earlier run had sent: the server replayed their answer. */
  already: number
  /** Records checked by `--dry-run`. */
  validated: number
  chunks: number
  /** Bytes of the file read so far, and its size (null for standard input). */
  bytes: number
  totalBytes: number | null
  startedMs: number
}

const COUNT = new Intl.NumberFormat('en-US')

const done = (t: ImportTally) => t.created + t.already + t.validated

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--:--'
  const s = Math.round(seconds)
  const parts = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60]
  const [h, m, sec] = parts.map((n) => String(n).padStart(2, '0'))
  return parts[0]! > 0 ? `${h}:${m}:${sec}` : `${m}:${sec}`
}

/**
 * The progress line redrawn in place on a terminal: a bar of the bytes read (the rows are not
 * counted first: that would read the file twice), the records done, the rate and the time left.
 */
export function progressLine(t: ImportTally, nowMs: number, width = 80): string {
  const seconds = Math.max(0.001, (nowMs - t.startedMs) / 1000)
  const rate = done(t) / seconds
  const share = t.totalBytes ? Math.min(1, t.bytes / t.totalBytes) : null
  const left = share === null || share === 0 ? Number.NaN : (seconds * (1 - share)) / share
  const text = ` ${COUNT.format(done(t))} records  ${COUNT.format(Math.round(rate))}/s  ${share === null ? duration(seconds) : `${Math.floor(share * 100)}%  ${duration(left)} left`}`
  const barWidth = Math.max(10, Math.min(40, width - text.length - 3))
  const filled = share === null ? 0 : Math.round(share * barWidth)
  const bar = share === null ? '' : `[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}]`
  return `${bar}${text}`
}

/** The summary an import ends with, as a script reads it (one JSON object a line). */
export function summaryOf(t: ImportTally, nowMs: number, dryRun: boolean): Record<string, number> {
  const seconds = Math.round((nowMs - t.startedMs) / 10) / 100
  return dryRun
    ? { validated: t.validated, chunks: t.chunks, seconds }
    : { created: t.created, alreadyImported: t.already, chunks: t.chunks, seconds }
}

/** The summary as a sentence, for a terminal. */
export function summaryLine(t: ImportTally, nowMs: number, collection: string, dryRun: boolean): string {
  const seconds = (nowMs - t.startedMs) / 1000
  const rate = `${COUNT.format(Math.round(done(t) / Math.max(0.001, seconds)))} records/s`
  if (dryRun)
    return `${COUNT.format(t.validated)} rows valid for ${collection} (nothing written; ${t.chunks} chunks, ${seconds.toFixed(1)} s)`
  return `Imported into ${collection}: ${COUNT.format(t.created)} created, ${COUNT.format(t.already)} already imported (${t.chunks} chunks, ${seconds.toFixed(1)} s, ${rate})`
}

/**
 * What Ctrl-C leaves on stderr: how far the import got, and that running it again goes on (its
 * chunks' keys replay what is in, so nothing is created twice).
 */
export function interruptedLine(t: ImportTally, dryRun: boolean): string {
  const done = dryRun
    ? `${COUNT.format(t.validated)} rows validated`
    : `${COUNT.format(t.created + t.already)} records in`
  return `interrupted: ${done} (${t.chunks} chunks); run the same command again to go on, nothing is created twice`
}
