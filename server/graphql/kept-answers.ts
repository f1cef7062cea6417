import {
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  getNamedType,
  getOperationAST,
  isAbstractType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from 'graphql'
import type { Plugin } from 'graphql-yoga'
import { canonicalJson } from '../../shared/canonical-json.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Principal, TokenVerifier } from '../auth/tokens.ts'
import type { ResponseCache } from '../http/response-cache.ts'
import { isDatabaseUnavailable } from '../store/availability.ts'
import type { GraphQLContext } from './context.ts'
import { GRAPHQL_PATH, typeName } from './names.ts'

/**
 * GraphQL queries through the response cache (docs/architecture.md, "Response cache"): the same
 * entries, bound and validity as REST's record reads. The key is the organization, the read scopes
 * and everything of the request that shapes the answer; an answer is kept only when it is the 200
 * of a `query` that ran without errors and showed no record that changes without an event.
 */

/** Where the request's cache ticket travels to the plugin (in Yoga's server context). */
export const TICKET = 'keptAnswerTicket'

/** One request's way through the cache: set by the plugin when the answer may be kept. */
export interface Ticket {
  keep: boolean
}

/** An operation's context: the service's, with the server context's ticket (Yoga merges them). */
type TicketContext = GraphQLContext & { [TICKET]?: Ticket }

/**
 * The GraphQL parameters a GET carries, as Yoga reads them (an empty value is no value); undefined
 * when `variables` or `extensions` is not JSON, which Yoga answers with an error.
 */
function getParams(url: URL): Record<string, unknown> | undefined {
  const params: Record<string, unknown> = {}
  try {
    for (const name of ['query', 'operationName', 'variables', 'extensions']) {
      const value = url.searchParams.get(name)
      if (!value) continue
      params[name] = name === 'variables' || name === 'extensions' ? JSON.parse(value) : value
    }
  } catch {
    return undefined
  }
  return params
}

/**
 * What of a request shapes its answer, beyond the principal's organization and read scopes: the
 * method, the `Accept` header as sent (it picks `application/graphql-response+json` or
 * `application/json`, and the status of a request that fails validation), and every GraphQL
 * parameter (document, operation name, variables, extensions) as canonical JSON. Undefined for a
 * request the cache does not take: neither a GET nor a JSON POST, or a body that is not an object.
 */
export function requestKey(request: Request, json: string | undefined): string | undefined {
  let params: unknown
  if (request.method === 'GET') params = getParams(new URL(request.url))
  else if (request.method === 'POST' && json !== undefined) {
    try {
      params = JSON.parse(json)
    } catch {
      return undefined
    }
  }
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return undefined
  return `${request.method} ${GRAPHQL_PATH}\n${request.headers.get('accept') ?? ''}\n${canonicalJson(params)}`
}

/**
 * The types whose data changes without an event, which the organization's stamp does not see (a
 * webhook endpoint's deliveries, written by the delivery worker): the record type, its connection
 * and edge, its aggregate groups, and every union or interface that may stand for one, except `Node`, whose `node` and
 * `nodes` fields mark the answer themselves (server/graphql/node.ts).
 */
function unkeptTypes(schema: GraphQLSchema, resources: readonly Resource[]): Set<GraphQLNamedType> {
  const names = new Set<string>()
  for (const resource of resources) {
    if (resource.cacheable) continue
    const name = typeName(resource)
    names.add(name).add(`${name}Connection`).add(`${name}Edge`).add(`${name}Aggregate`)
  }
  const types = new Set<GraphQLNamedType>()
  for (const type of Object.values(schema.getTypeMap())) {
    if (names.has(type.name)) types.add(type)
    else if (isAbstractType(type) && type.name !== 'Node') {
      if (schema.getPossibleTypes(type).some((possible) => names.has(possible.name))) types.add(type)
    }
  }
  return types
}

/** Whether no field of `document` reads or returns one of `unkept` (fragments included). */
function showsOnlyKept(
  schema: GraphQLSchema,
  document: DocumentNode,
  unkept: Set<GraphQLNamedType>,
): boolean {
  const typeInfo = new TypeInfo(schema)
  let kept = true
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const parent = typeInfo.getParentType()
        const type = typeInfo.getType()
        if ((parent && unkept.has(parent)) || (type && unkept.has(getNamedType(type)))) kept = false
      },
    }),
  )
  return kept
}

/**
 * Marks the request's ticket when its answer may be kept: the operation run is a `query` (never a
 * mutation or subscription), every field it may show changes only with an event, and it ended
 * without errors. Yoga parses a document text once (its parse cache), so the check runs once per
 * document.
 */
export function useKeptAnswers(resources: readonly Resource[]): Plugin<TicketContext> {
  const documents = new WeakMap<DocumentNode, boolean>()
  let unkept: Set<GraphQLNamedType> | undefined
  return {
    onExecute({ args }) {
      const context = args.contextValue
      const ticket = context[TICKET]
      if (ticket === undefined) return
      if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return
      let keepable = documents.get(args.document)
      if (keepable === undefined) {
        unkept ??= unkeptTypes(args.schema, resources)
        keepable = showsOnlyKept(args.schema, args.document, unkept)
        documents.set(args.document, keepable)
      }
      if (!keepable) return
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return
          ticket.keep = !result.errors?.length && context.answer.keepable
        },
      }
    },
  }
}

/** Headers of an answer from the cache: what Yoga sent with it. */
const answerHeaders = (contentType: string, bytes: number) => ({
  'Content-Type': contentType,
  'Content-Length': String(bytes),
})

/** Only JSON answers are kept; event streams and multipart answers (subscriptions) never are. */
const KEPT_TYPES = /^application\/(?:graphql-response\+)?json\b/i

interface CachedOperationOptions {
  cache: ResponseCache
  verifier: TokenVerifier
  request: Request
  json: string | undefined
  /** Runs the request through Yoga, for `principal` when the token was verified, with the ticket in its server context. */
  run: (principal: Principal | undefined, ticket: Ticket | undefined) => Response | Promise<Response>
}

/**
 * A GraphQL request through the response cache. The token is verified first (revocation, the
 * role's cap), as for REST (the edge has applied the rate limit); then the organization's stamp is
 * read, before the operation runs, and the answer kept under it when the plugin marked it so.
 */
export async function cachedOperation(options: CachedOperationOptions): Promise<Response> {
  const { cache, verifier, request, run } = options
  const principal = await verified(verifier, request.headers.get('authorization'))
  const described = principal && requestKey(request, options.json)
  if (principal === undefined || described === undefined) return run(principal, undefined)
  const key = cache.operationKeyOf(principal, described)
  let stamp: number
  try {
    const read = cache.stamp(principal.orgId)
    stamp = read instanceof Promise ? await read : read
  } catch (error) {
    // The database cannot be reached: the operation answers it as GraphQL does, 200 with the error.
    if (isDatabaseUnavailable(error)) return run(principal, undefined)
    throw error
  }
  const kept = cache.operation(key, stamp)
  if (kept !== undefined)
    return new Response(kept.text, {
      status: kept.status,
      headers: answerHeaders(kept.contentType, kept.bytes),
    })
  const ticket: Ticket = { keep: false }
  const response = await run(principal, ticket)
  const contentType = response.headers.get('content-type')
  if (!ticket.keep || response.status !== 200 || contentType === null || !KEPT_TYPES.test(contentType))
    return response
  const text = await response.text()
  const answer = { status: 200, contentType, text, bytes: Buffer.byteLength(text) }
  cache.keep(key, stamp, answer)
  return new Response(text, { status: 200, headers: answerHeaders(contentType, answer.bytes) })
}

/** The principal of the request's token as it stands now; undefined without one or when it fails (Yoga answers that). */
async function verified(verifier: TokenVerifier, header: string | null): Promise<Principal | undefined> {
  if (header === null) return undefined
  try {
    return await verifier.verifyHeader(header)
  } catch {
    return undefined
  }
}
