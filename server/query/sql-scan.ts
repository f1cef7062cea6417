import { malformed, unprocessable } from './media.ts'

/** Longest SQL body, in characters. */
const MAX_SQL_LENGTH = 10_000
/**
 * Deepest nesting of parentheses. The SQL parser backtracks, and its time doubles with each level
 * of an unclosed or broken nesting: at 8 levels a hostile body still parses in milliseconds.
 */
const MAX_SQL_PARENS = 8

/**
 * A pass over the SQL text before the parser sees it: strings, quoted names and comments are
 * skipped; parentheses must balance and nest at most MAX_SQL_PARENS deep. Unterminated strings,
 * names and comments are malformed (400); the limits are 422.
 */
export function scanSql(text: string): void {
  if (text.length > MAX_SQL_LENGTH) {
    throw unprocessable(
      `The SQL query is longer than ${MAX_SQL_LENGTH} characters.`,
      `is longer than ${MAX_SQL_LENGTH} characters`,
    )
  }
  let depth = 0
  let i = 0
  const skipTo = (close: string, what: string) => {
    const end = text.indexOf(close, i + 1)
    if (end < 0) throw malformed('The SQL query does not parse.', `unterminated ${what} starting at ${i}`)
    i = end + close.length
  }
  while (i < text.length) {
    const c = text[i]!
    if (c === "'") skipQuoted("'")
    else if (c === '"' || c === '`') skipQuoted(c)
    else if (c === '[') skipTo(']', 'quoted name')
    else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i)
      i = end < 0 ? text.length : end + 1
    } else if (c === '/' && text[i + 1] === '*') {
      i += 1
      skipTo('*/', 'comment')
    } else {
      if (c === '(') {
        depth += 1
        if (depth > MAX_SQL_PARENS) {
          throw unprocessable(
            `The SQL query nests parentheses deeper than ${MAX_SQL_PARENS} levels.`,
            `parentheses nest deeper than ${MAX_SQL_PARENS} levels at ${i}`,
          )
        }
      } else if (c === ')') {
        depth -= 1
        if (depth < 0) throw malformed('The SQL query does not parse.', `unbalanced ')' at ${i}`)
      }
      i += 1
    }
  }
  if (depth !== 0) throw malformed('The SQL query does not parse.', "a '(' is never closed")

  // A quote inside is written doubled ('it''s').
  function skipQuoted(quote: string) {
    const start = i
    i += 1
    for (;;) {
      const end = text.indexOf(quote, i)
      if (end < 0)
        throw malformed('The SQL query does not parse.', `unterminated string starting at ${start}`)
      if (text[end + 1] === quote) i = end + 2
      else {
        i = end + 1
        return
      }
    }
  }
}
