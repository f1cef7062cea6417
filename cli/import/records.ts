/**
 * A CSV or NDJSON file cut into its records as it streams in, each with the line of the file it
 * starts on, so that `api import` sends them in chunks without holding the whole file and names a
 * failing record by its place in the file. Only record boundaries are found here (a newline outside
 * quotes); the server parses the cells.
 */

export type InputFormat = 'csv' | 'ndjson'

/** One record of the file: its text without the line break, and the line it starts on (from 1). */
export interface FileRecord {
  text: string
  line: number
}

/**
 * Cuts text into records. CSV: a newline inside a quoted cell belongs to the cell (RFC 4180), so a
 * record ends at a newline after an even number of quotes. NDJSON: every line is one. Empty lines
 * (and, in NDJSON, blank ones) are skipped, as the server skips them; a trailing `\r` is dropped.
 */
export class RecordSplitter {
  private pending = ''
  private pendingLine = 1
  private line = 1
  private quotes = 0
  private started = false

  constructor(private readonly format: InputFormat) {}

  /** The records completed by `text`, the next piece of the file. */
  push(piece: string): FileRecord[] {
    // A byte order mark opens the file, not its first record.
    const text = !this.started && piece.charCodeAt(0) === 0xfeff ? piece.slice(1) : piece
    if (piece.length > 0) this.started = true
    const out: FileRecord[] = []
    let start = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === 34 && this.format === 'csv') this.quotes++
      else if (c === 10) {
        this.line++
        if (this.quotes % 2 === 0) {
          this.emit(this.pending + text.slice(start, i), out)
          this.pending = ''
          this.pendingLine = this.line
          start = i + 1
        }
      }
    }
    this.pending += text.slice(start)
    return out
  }

  /** The last record, when the file does not end with a line break. */
  end(): FileRecord[] {
    const out: FileRecord[] = []
    this.emit(this.pending, out)
    this.pending = ''
    return out
  }

  private emit(raw: string, out: FileRecord[]): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    this.quotes = 0
    const empty = this.format === 'csv' ? text === '' : text.trim() === ''
    if (!empty) out.push({ text, line: this.pendingLine })
  }
}

/** The format of FILE by its extension (`.csv`, `.ndjson`, `.jsonl`), or null. */
export function formatOfName(file: string): InputFormat | null {
  const lower = file.toLowerCase()
  if (lower.endsWith('.csv')) return 'csv'
  if (lower.endsWith('.ndjson') || lower.endsWith('.jsonl')) return 'ndjson'
  return null
}
