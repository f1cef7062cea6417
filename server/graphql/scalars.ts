import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql'

/**
 * The custom scalars. Amounts and prices are integers in minor units that may pass 2^31, which the
 * built-in Int (32-bit, GraphQL spec §3.5.1) cannot carry; SafeInt is what JSON and JavaScript
 * carry exactly. Timestamps stay the REST strings; JSON carries event payloads as they are.
 */

const MAX = Number.MAX_SAFE_INTEGER

function safeInt(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new GraphQLError(
      `SafeInt cannot represent ${JSON.stringify(value)}: an integer within ±${MAX} is expected.`,
    )
  }
  return value
}

export const SafeInt = new GraphQLScalarType({
  name: 'SafeInt',
  description: `An integer between -${MAX} and ${MAX} (2^53 - 1), written as a JSON number (sums of money in minor units may pass 2^31).`,
  serialize: safeInt,
  parseValue: safeInt,
  parseLiteral(ast) {
    if (ast.kind !== Kind.INT) throw new GraphQLError('SafeInt must be an integer literal.', { nodes: ast })
    return safeInt(Number(ast.value))
  },
})

function dateTime(value: unknown): string {
  if (typeof value !== 'string') throw new GraphQLError('DateTime must be a string (ISO 8601).')
  return value
}

export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description:
    'An ISO 8601 timestamp. Records carry UTC with milliseconds (2024-05-01T12:00:00.000Z); filters also take a date (2024-05-01, midnight UTC) or a date-time with an offset.',
  serialize: dateTime,
  parseValue: dateTime,
  parseLiteral(ast) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string literal.', { nodes: ast })
    return ast.value
  },
})

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description:
    'Any JSON value (an event carries the record as it was after, or before a delete, the change).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
})
