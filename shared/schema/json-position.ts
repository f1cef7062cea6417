/**
 * Where JSON text stops being JSON (RFC 8259), for the schema file's syntax error: Bun's
 * `JSON.parse` says what it met but not where, and a person fixing a trailing comma in a long file
 * needs the line.
 */

const WHITESPACE = ' \t\n\r'
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y

/** The line and column (from 1) of the first character that is not valid JSON, if any. */
export function jsonErrorAt(text: string): { line: number; column: number } | undefined {
  let i = 0
  const fail = (): never => {
    throw new RangeError(String(i))
  }
  const skip = () => {
    while (i < text.length && WHITESPACE.includes(text[i]!)) i++
  }
  const expect = (char: string) => {
    if (text[i] !== char) fail()
    i++
  }
  const string = () => {
    expect('"')
    while (i < text.length) {
      const char = text[i]!
      if (char === '"') return void i++
      if (char === '\\') {
        ESCAPE.lastIndex = i
        if (!ESCAPE.test(text)) fail()
        i = ESCAPE.lastIndex
      } else if (char < ' ') fail()
      else i++
    }
    fail()
  }
  // Members of an object or items of an array, up to `close`.
  const members = (close: string, member: () => void) => {
    i++
    skip()
    if (text[i] === close) return void i++
    for (;;) {
      member()
      skip()
      if (text[i] === ',') i++
      else return expect(close)
    }
  }
  const member = () => {
    skip()
    string()
    skip()
    expect(':')
    value()
  }
  const literal = () => {
    const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, i))
    if (word) {
      i += word.length
      return
    }
    NUMBER.lastIndex = i
    if (!NUMBER.test(text)) fail()
    i = NUMBER.lastIndex
  }
  function value(): void {
    skip()
    const char = text[i]
    if (char === '{') members('}', member)
    else if (char === '[') members(']', value)
    else if (char === '"') string()
    else literal()
  }
  try {
    value()
    skip()
    if (i < text.length) fail()
    return undefined
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    const at = Number(error.message)
    const before = text.slice(0, at).split('\n')
    return { line: before.length, column: before.at(-1)!.length + 1 }
  }
}
