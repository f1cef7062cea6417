import { JSONPathEnvironment, JSONPathError, JSONPathQuery, jsonpath } from 'json-p3'
import type { Condition } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import { linearMatch, linearSearch } from './iregexp.ts'
import { pushdown } from './jsonpath-pushdown.ts'
import { malformed, unprocessable } from './media.ts'
import { searchExamples } from './sql-examples.ts'

/** Longest JSONPath body, in characters. */
const MAX_JSONPATH_LENGTH = 2000
/** Absolute queries (`$` inside a filter) allowed in one path: each one reads the whole array. */
const MAX_ROOT_QUERIES = 1

/** RFC 9535 blank space (`B`: space, tab, LF, CR) at either end of the body. */
const EDGE_BLANK = /^[ \t\n\r]|[ \t\n\r]$/

const { FilterSelector, WildcardSelector, NameSelector } = jsonpath.selectors
const { InfixExpression, PrefixExpression, LogicalExpression, FunctionExtension, RootQuery, RelativeQuery } =
  jsonpath.expressions

/**
 * RFC 9535, strict, with match() and search() run by RE2 in linear time. Descendant segments may
 * visit at most 32 levels (the records are shallow; `events.data` is the deepest).
 */
const environment = new JSONPathEnvironment({ strict: true, maxRecursionDepth: 32 })
environment.functionRegister.set('match', linearMatch)
environment.functionRegister.set('search', linearSearch)

/**
 * How an `application/jsonpath` body runs. `records`: the path starts with a filter (or wildcard)
 * over the collection's records and never looks at the whole array, so the store pages through the
 * records (`where` pushed down to SQL, `exact` when nothing is left to test in memory) and each
 * record contributes the nodes the path selects from it. `memory`: any other path, evaluated over
 * the whole collection, which may then hold at most MAX_MEMORY_RECORDS (run.ts) records.
 */
export interface JsonPathPlan {
  resource: Resource
  text: string
  /** The path over the collection's array (on /search, without the collection's name). */
  path: JSONPathQuery
  mode: 'records' | 'memory'
  where: Condition[]
  exact: boolean
  /** records mode: the first segment alone, the test a record must pass to count. */
  recordTest?: JSONPathQuery
}

/**
 * Parses an RFC 9535 query applied to the collection as an array (`$[?@.status == 'paid']`). On
 * /api/v1/search (`fixed` undefined) the root is an object of collections and the path starts by
 * naming one (`$.orders[?@.amount > 100]`). 400 when it does not parse, 422 past the limits.
 */
export function parseJsonPathBody(schema: Schema, text: string, fixed?: Resource): JsonPathPlan {
  // RFC 9535 §2.1.1: a query is `$` and its segments, with no blank before or after. A trailing
  // newline (a file sent with `curl --data-binary @q.jsonpath`) is not forgiven either.
  if (EDGE_BLANK.test(text)) {
    throw malformed(
      'The JSONPath query does not parse (RFC 9535).',
      'has whitespace before or after the query (RFC 9535 allows none, a trailing newline included)',
    )
  }
  if (text.length > MAX_JSONPATH_LENGTH) {
    throw unprocessable(
      `The JSONPath query is longer than ${MAX_JSONPATH_LENGTH} characters.`,
      `is longer than ${MAX_JSONPATH_LENGTH} characters`,
    )
  }
  let compiled: JSONPathQuery
  try {
    compiled = environment.compile(text)
  } catch (error) {
    const message = error instanceof JSONPathError ? error.message : 'not a JSONPath query'
    throw malformed('The JSONPath query does not parse (RFC 9535).', message.slice(0, 200), { cause: error })
  }
  let segments = compiled.segments
  let resource = fixed
  if (!resource) {
    const first = segments[0]
    const selector = first?.selectors.length === 1 ? first.selectors[0] : undefined
    const name =
      selector instanceof NameSelector && first?.constructor.name === 'ChildSegment' ? selector.name : ''
    resource = schema.byName(name)
    if (!resource) {
      throw unprocessable(
        'On /api/v1/search a JSONPath query starts with the collection.',
        `must start with a collection, as in ${searchExamples(schema).jsonPath} (collections: ${schema.resources.map((r) => r.name).join(', ')})`,
      )
    }
    segments = segments.slice(1)
  }
  const roots = countRootQueries(segments)
  if (roots > MAX_ROOT_QUERIES) {
    throw unprocessable(
      `The JSONPath query uses $ inside filters more than ${MAX_ROOT_QUERIES} time(s).`,
      `may use the root ($) inside filters at most ${MAX_ROOT_QUERIES} time(s)`,
    )
  }
  const path = new JSONPathQuery(environment, segments)
  const first = segments[0]
  const selector = first?.selectors.length === 1 ? first.selectors[0] : undefined
  const recordWise =
    first !== undefined &&
    first.constructor.name === 'ChildSegment' &&
    (selector instanceof WildcardSelector || selector instanceof FilterSelector) &&
    roots === 0
  if (!recordWise) return { resource, text, path, mode: 'memory', where: [], exact: false }
  const translated = selector instanceof FilterSelector ? pushdown(resource, selector.expression) : undefined
  const isWildcard = selector instanceof WildcardSelector
  return {
    resource,
    text,
    path,
    mode: 'records',
    where: translated ? [translated.condition] : [],
    exact: isWildcard || translated?.exact === true,
    recordTest: new JSONPathQuery(environment, [first]),
  }
}

/** Absolute queries anywhere in the path's filters. */
function countRootQueries(segments: readonly { selectors: readonly unknown[] }[]): number {
  let count = 0
  const visit = (node: unknown): void => {
    if (node instanceof RootQuery) {
      count += 1
      for (const segment of node.path.segments) segment.selectors.forEach(visitSelector)
    } else if (node instanceof RelativeQuery) {
      for (const segment of node.path.segments) segment.selectors.forEach(visitSelector)
    } else if (node instanceof LogicalExpression) visit(node.expression)
    else if (node instanceof PrefixExpression) visit(node.right)
    else if (node instanceof InfixExpression) {
      visit(node.left)
      visit(node.right)
    } else if (node instanceof FunctionExtension) node.args.forEach(visit)
  }
  const visitSelector = (selector: unknown) => {
    if (selector instanceof FilterSelector) visit(selector.expression)
  }
  for (const segment of segments) segment.selectors.forEach(visitSelector)
  return count
}
