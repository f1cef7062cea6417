import { readFileSync } from 'node:fs'
import { UsageError } from './errors.ts'
import type { Io } from './io.ts'

const ITEM = /^([A-Za-z_][\w.-]*)((?:\[[\w.-]*\])*)(:=|=)([\s\S]*)$/
/** An index past this would be a mistake, not an array anyone means to send. */
const MAX_INDEX = 1000

/** A plain own property, even for names such as `__proto__`. */
function setOwn(target: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Request items in the style of httpie: `key=value` sends a string, `key:=json` any JSON value
 * (`amount:=1200`, `active:=true`, `tags:='["a"]'`), and brackets nest them:
 * `amount[value]:=4200 amount[currency]=EUR` is `{"amount": {"value": 4200, "currency": "EUR"}}`,
 * `tags[]=a tags[]=b` appends to a list and `tags[0]=a` sets an index. A later item replaces an
 * earlier one of the same path; one that would turn a value into an object or a list is refused.
 */
export function parseItems(items: string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const item of items) {
    const match = ITEM.exec(item)
    if (!match)
      throw new UsageError(`"${item}" is not a field: use key=value (string), key:=json or key[sub]=value`)
    const [, name, brackets, op, raw] = match
    let value: unknown = raw
    if (op === ':=') {
      try {
        value = JSON.parse(raw!)
      } catch {
        throw new UsageError(
          `the value of ${name}${brackets} is not JSON: ${raw} (strings go as ${name}${brackets}=${raw})`,
        )
      }
    }
    const path: (string | number | null)[] = [name!]
    for (const [, segment] of brackets!.matchAll(/\[([\w.-]*)\]/g)) {
      path.push(segment === '' ? null : /^\d+$/.test(segment!) ? Number(segment) : segment!)
    }
    assign(body, path, value, item)
  }
  return body
}

/** Sets `value` at `path` (`null` appends to a list), creating objects and lists on the way. */
function assign(
  body: Record<string, unknown>,
  path: (string | number | null)[],
  value: unknown,
  item: string,
) {
  const conflict = () => new UsageError(`"${item}" does not fit the fields given before it`)
  let container: Record<string, unknown> | unknown[] = body
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!
    const last = i === path.length - 1
    const next = path[i + 1]
    const wanted = last ? null : typeof next === 'string' ? 'object' : 'list'
    let index: string | number
    if (Array.isArray(container)) {
      if (typeof key === 'string') throw conflict()
      index = key === null ? container.length : key
      if (index > container.length || index > MAX_INDEX)
        throw new UsageError(
          `"${item}": index ${index} leaves a gap (the list has ${container.length} items)`,
        )
    } else {
      if (typeof key !== 'string') throw conflict()
      index = key
    }
    const current: unknown = Object.hasOwn(container, index)
      ? (container as Record<string, unknown>)[index]
      : undefined
    if (wanted === null) {
      if (isObject(current) || Array.isArray(current)) throw conflict()
      setOwn(container, index, value)
      return
    }
    if (current === undefined) {
      const child = wanted === 'object' ? {} : []
      setOwn(container, index, child)
      container = child
    } else if (wanted === 'object' ? isObject(current) : Array.isArray(current)) {
      container = current as Record<string, unknown> | unknown[]
    } else throw conflict()
  }
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
