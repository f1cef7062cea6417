import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor'
import {
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLNamedType,
  getNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  NoSchemaIntrospectionCustomRule,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../shared/query/types.ts'

/** The limits every operation is checked against before it runs (documented in docs/graphql.md). */
export const GRAPHQL_LIMITS = {
  /** Nesting of selections (`orders { nodes { lineItems { nodes { product { name } } } } }` is 6). */
  maxDepth: 10,
  /**
   * graphql-armor's cost: 1 per scalar field, 2 per object field plus 1.5 times the cost of its
   * selections, times the field's `first` when that is a literal.
   */
  maxCost: 100_000,
  maxAliases: 15,
  /** Lexical tokens in the document (names, punctuation, values). */
  maxTokens: 1000,
  maxDirectives: 50,
  /** Records an operation may ask for: the sum over connections of `first` times the enclosing `first`s. */
  maxRecords: 10_000,
} as const

const limitError = (message: string) =>
  new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', reason: 'LIMIT', details: [] } })

/**
 * Armor reports through the validation context instead of throwing: a throw from a validation rule
 * escapes `validate()`, which over a WebSocket is an unhandled rejection that can end the process.
 */
const report = (context: ValidationContext | null, error: GraphQLError) =>
  context?.reportError(limitError(error.message.replace(/^Syntax Error: /, '')))

function armor(production: boolean) {
  const reported = { propagateOnRejection: false, onReject: [report] }
  return EnvelopArmorPlugin({
    maxDepth: { n: GRAPHQL_LIMITS.maxDepth, ...reported },
    costLimit: { maxCost: GRAPHQL_LIMITS.maxCost, ...reported },
    maxAliases: { n: GRAPHQL_LIMITS.maxAliases, ...reported },
    maxDirectives: { n: GRAPHQL_LIMITS.maxDirectives, ...reported },
    // Counted while parsing, where no context exists: this one throws a GraphQLError, which is a
    // syntax error to every caller (Yoga and our WebSocket handler catch parse errors).
    maxTokens: { n: GRAPHQL_LIMITS.maxTokens },
    // Suggestions ("Did you mean ...") would reveal the schema that production hides.
    blockFieldSuggestion: { enabled: production },
  })
}

/**
 * The records a field asks for: a connection's `first` literal, `nodes`' count of `ids` when
 * given as a list; the maximum when a variable.
 */
function pageSize(node: FieldNode) {
  const ids = node.arguments?.find((a) => a.name.value === 'ids')?.value
  if (ids) return ids.kind === Kind.LIST ? ids.values.length : MAX_LIMIT
  const first = node.arguments?.find((a) => a.name.value === 'first')?.value
  if (!first) return DEFAULT_LIMIT
  if (first.kind === Kind.INT) return Math.max(1, Number(first.value))
  return MAX_LIMIT
}

/**
 * Static costs do not see page sizes: `orders(first: 100) { nodes { lineItems(first: 100) ... } }`
 * asks for 10,100 records at one depth. This rule bounds the records an operation can return.
 */
function maxRecordsRule(context: ValidationContext) {
  const count = (
    set: SelectionSetNode,
    type: GraphQLNamedType,
    factor: number,
    seen: Set<string>,
  ): number => {
    let total = 0
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!(isObjectType(type) || isInterfaceType(type)) || selection.name.value.startsWith('__')) continue
        const field = type.getFields()[selection.name.value]
        if (!field) continue
        const isPage = field.args.some((a) => a.name === 'first' || a.name === 'ids')
        const here = isPage ? factor * pageSize(selection) : factor
        if (isPage) total += here
        if (selection.selectionSet)
          total += count(selection.selectionSet, getNamedType(field.type), here, seen)
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition
          ? context.getSchema().getType(selection.typeCondition.name.value)
          : type
        if (on) total += count(selection.selectionSet, on, factor, seen)
      } else {
        const fragment: FragmentDefinitionNode | null | undefined = context.getFragment(selection.name.value)
        if (!fragment || seen.has(fragment.name.value)) continue
        const on = context.getSchema().getType(fragment.typeCondition.name.value)
        if (on) total += count(fragment.selectionSet, on, factor, new Set([...seen, fragment.name.value]))
      }
    }
    return total
  }
  return {
    OperationDefinition(operation: OperationDefinitionNode) {
      const root = context.getSchema().getRootType(operation.operation)
      if (!root) return
      const records = count(operation.selectionSet, root, 1, new Set())
      if (records > GRAPHQL_LIMITS.maxRecords) {
        context.reportError(
          limitError(
            `The operation may return up to ${records} records; the limit is ${GRAPHQL_LIMITS.maxRecords}. Ask for smaller pages (first).`,
          ),
        )
      }
    },
  }
}

/** Depth, cost, alias, token, directive and record limits; no introspection in production. */
export function limitPlugins(production: boolean): Plugin[] {
  const rules: Plugin = {
    onValidate({ addValidationRule }) {
      addValidationRule(maxRecordsRule)
      if (production) addValidationRule(NoSchemaIntrospectionCustomRule)
    },
  }
  return [armor(production) as Plugin, rules]
}
