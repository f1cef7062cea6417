import { fetchTrusting } from './ca-cert.ts'

/**
 * Everything a command touches outside itself, injected so tests drive the CLI with fake
 * terminals, environments and clocks while talking to a real server.
 */
export interface Io {
  stdout: (text: string) => void
  stderr: (text: string) => void
  /** Reads all of standard input (for `--data @-` and `--input -`). */
  readStdin: () => Promise<string>
  env: Record<string, string | undefined>
  stdoutIsTTY: boolean
  stderrIsTTY: boolean
  stdinIsTTY: boolean
  /** The terminal's width in columns, when stdout is one (or `COLUMNS` says). */
  columns?: number
  /** Asks a yes/no question on the terminal; only called when stdin and stderr are terminals. */
  confirm: (question: string) => Promise<boolean>
  fetch: typeof fetch
  now: () => number
  sleep: (ms: number) => Promise<void>
  /** Opens a URL in the system browser; false when there is none. */
  openBrowser: (url: string) => Promise<boolean>
  /** Resolves when the user interrupts (Ctrl-C), for streams that run until then. */
  interrupted: Promise<void>
}

export function processIo(): Io {
  let interrupted: Promise<void> | undefined
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: () => Bun.stdin.text(),
    env: process.env,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    columns: Number(process.env.COLUMNS) || process.stdout.columns || undefined,
    confirm: async (question) => {
      process.stderr.write(`${question} [y/N] `)
      for await (const line of console) return /^y(es)?$/i.test(line.trim())
      return false
    },
    fetch: fetchTrusting(process.env.API_CA_CERT),
    now: Date.now,
    sleep: (ms) => Bun.sleep(ms),
    openBrowser: async (url) => {
      const opener =
        process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
      if (!Bun.which(opener)) return false
      // Only on a desktop session: a headless shell has nowhere to show it.
      if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false
      const child = Bun.spawn([opener, url], { stdout: 'ignore', stderr: 'ignore' })
      return (await child.exited) === 0
    },
    // Created on first use: a SIGINT listener replaces the default exit, so installing it for
    // every command would make Ctrl-C do nothing during a long `--all` or a device login.
    get interrupted() {
      interrupted ??= new Promise<void>((resolve) => process.once('SIGINT', () => resolve()))
      return interrupted
    },
  }
}
