import { badRequest } from '../../shared/errors.ts'
import { MAX_JSON_DEPTH } from './limits.ts'

/** An open array or object while the text is scanned. */
interface Frame {
  object: boolean
  /** In an object: the next string is a member name (after `{` or `,`). */
  expectName: boolean
  /** In an object: the member being read, for the path of a duplicate. */
  name: string
  /** In an array: the index of the element being read. */
  index: number
  /** The object's names so far: a list while it is short, then a set. */
  names: string[]
  many: Set<string> | undefined
}

/** Objects with more names than this look them up in a set; a list is faster below it. */
const FEW_NAMES = 16
/** Paths in error details are cut here: a member name may be as long as the body. */
const MAX_PATH_LENGTH = 200
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/**
 * The checks every JSON text from a client passes before anything parses it (REST bodies, QUERY
 * JSON bodies, GraphQL requests over HTTP and over WebSocket), in one scan of the text:
 *
 * - 400 when arrays and objects nest deeper than MAX_JSON_DEPTH: deep nesting costs stack in
 *   `JSON.parse`, and no resource needs it;
 * - 400 when an object repeats a member name, at any depth: RFC 8259 §4 leaves the meaning to the
 *   parser (`JSON.parse` keeps the last), I-JSON (RFC 7493 §2.3) forbids it. Names compare after
 *   unescaping, so `{"a\u0062": 1, "ab": 2}` repeats `ab`. The detail's field is the member's path
 *   from the root of the text (`amount`, `items[0].sku`, `variables.input["a b"]`).
 *
 * It does not validate: a text that is not JSON passes on to `JSON.parse`, which says so.
 */
export function checkJsonText(text: string): void {
  const frames: Frame[] = []
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      const end = closingQuote(text, i)
      if (end === -1) return
      const frame = depth > 0 ? frames[depth - 1]! : undefined
      if (frame?.object && frame.expectName) {
        frame.expectName = false
        frame.name = memberName(text, i, end)
        if (repeated(frame, frame.name)) throw duplicate(frames, depth)
      }
      i = end
    } else if (c === 123 || c === 91) {
      depth++
      if (depth > MAX_JSON_DEPTH)
        throw badRequest(`JSON bodies may nest arrays and objects at most ${MAX_JSON_DEPTH} levels deep.`, [
          { field: 'body', message: `is nested deeper than ${MAX_JSON_DEPTH} levels` },
        ])
      open(frames, depth, c === 123)
    } else if (c === 125 || c === 93) {
      if (depth > 0) depth--
    } else if (c === 44 && depth > 0) {
      const frame = frames[depth - 1]!
      if (frame.object) frame.expectName = true
      else frame.index++
    }
  }
}

/** Frames are reused by depth: siblings at one depth share one, and one set of names. */
function open(frames: Frame[], depth: number, object: boolean): void {
  const frame = frames[depth - 1]
  if (!frame) {
    frames.push({ object, expectName: object, name: '', index: 0, names: [], many: undefined })
    return
  }
  frame.object = object
  frame.expectName = object
  frame.name = ''
  frame.index = 0
  frame.names.length = 0
  frame.many = undefined
}

/** Whether the object already has `name`; records it otherwise. */
function repeated(frame: Frame, name: string): boolean {
  if (frame.many) {
    if (frame.many.has(name)) return true
    frame.many.add(name)
    return false
  }
  if (frame.names.includes(name)) return true
  frame.names.push(name)
  if (frame.names.length > FEW_NAMES) frame.many = new Set(frame.names)
  return false
}

/** The index of the quote closing the string opened at `open`, or -1 when there is none. */
function closingQuote(text: string, open: number): number {
  let at = open
  for (;;) {
    at = text.indexOf('"', at + 1)
    if (at === -1) return -1
    // Escaped when an odd number of backslashes precede it.
    let backslashes = 0
    for (let j = at - 1; text.charCodeAt(j) === 92; j--) backslashes++
    if (backslashes % 2 === 0) return at
  }
}

/** A member name as `JSON.parse` reads it: escapes resolved. */
function memberName(text: string, open: number, close: number): string {
  const raw = text.slice(open + 1, close)
  if (!raw.includes('\\')) return raw
  try {
    return JSON.parse(text.slice(open, close + 1)) as string
  } catch {
    // A bad escape: JSON.parse refuses the whole text afterwards.
    return raw
  }
}

function duplicate(frames: Frame[], depth: number) {
  let path = ''
  for (let d = 0; d < depth; d++) {
    const frame = frames[d]!
    if (!frame.object) path += `[${frame.index}]`
    else if (IDENTIFIER.test(frame.name)) path += path === '' ? frame.name : `.${frame.name}`
    else path += `[${JSON.stringify(frame.name)}]`
  }
  if (path.length > MAX_PATH_LENGTH) path = `${path.slice(0, MAX_PATH_LENGTH)}…`
  return badRequest(`The member name ${path} appears more than once in its object (RFC 7493 §2.3).`, [
    { field: path, message: 'appears more than once in its object' },
  ])
}
