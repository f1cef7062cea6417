import { readFileSync } from 'node:fs'
import { UsageError } from './errors.ts'
import type { Io } from './io.ts'

/**
 * Request items in the style of httpie: `key=value` sends a string, `key:=json` any JSON value
 * (`amount:=1200`, `active:=true`, `tags:='["a"]'`).
 */
export function parseItems(items: string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const item of items) {
    const match = /^([A-Za-z_][\w.-]*)(:=|=)([\s\S]*)$/.exec(item)
    if (!match) throw new UsageError(`"${item}" is not a field: use key=value (string) or key:=json`)
    const [, key, op, raw] = match
    if (op === '=') body[key!] = raw
    else {
      try {
        body[key!] = JSON.parse(raw!)
      } catch {
        throw new UsageError(`the value of ${key} is not JSON: ${raw} (strings go as ${key}=${raw})`)
      }
    }
  }
  return body
}

/** `--data '{...}'`, `--data @file.json` or `--data @-` (standard input). */
export async function readData(io: Io, data: string): Promise<string> {
  if (data === '@-') return io.readStdin()
  if (data.startsWith('@')) {
    try {
      return readFileSync(data.slice(1), 'utf8')
    } catch (error) {
      throw new UsageError(`cannot read ${data.slice(1)}: ${(error as Error).message}`)
    }
  }
  return data
}

/** The JSON body of a write: `--data` or items (not both). */
export async function bodyOf(
  io: Io,
  items: string[],
  data: string | undefined,
): Promise<Record<string, unknown>> {
  if (data !== undefined && items.length > 0) throw new UsageError('give fields or --data, not both')
  if (data === undefined) return parseItems(items)
  const text = await readData(io, data)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw new UsageError('--data is not valid JSON')
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError('--data must be a JSON object')
  return parsed as Record<string, unknown>
}
