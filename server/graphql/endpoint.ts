import type { Server, WebSocketHandler } from 'bun'
import { GraphQLError } from 'graphql'
import { createYoga, type GraphQLParams, type Plugin, type YogaLogger } from 'graphql-yoga'
import type { Principal, TokenVerifier } from '../auth/tokens.ts'
import type { RequestQuota } from '../http/rate-limit.ts'
import type { ResponseCache } from '../http/response-cache.ts'
import type { EngineContext } from '../resources/context.ts'
import { EventFeed } from '../resources/event-feed.ts'
import { type Authentication, authenticate, type GraphQLContext, operationContext } from './context.ts'
import { maskError, useContractErrorCodes } from './errors.ts'
import { cachedOperation, TICKET, type Ticket, useKeptAnswers } from './kept-answers.ts'
import { limitPlugins } from './limits.ts'
import { GRAPHQL_PATH } from './names.ts'
import { serviceSchema } from './schema.ts'
import { graphqlWebSocket, type SocketData } from './websocket.ts'

interface GraphQLOptions {
  engine: EngineContext
  verifier: TokenVerifier
  /** The HTTP edge's quota, which operations over WebSocket count against too; none when off. */
  limiter?: RequestQuota
  log: (error: unknown) => void
  /** The response cache, which keeps the answers of queries too; undefined under `serve --no-cache`. */
  cache?: ResponseCache
  /** No introspection, no field suggestions. */
  production?: boolean
}

export interface GraphQLEndpoint {
  /**
   * `/graphql` over HTTP: POST, GET (queries), and subscriptions as Server-Sent Events. `json` is a
   * JSON POST's body as the edge read and checked it (the request's own body is then used up).
   */
  fetch: (request: Request, json?: string) => Promise<Response>
  /** Upgrades `/graphql` WebSocket requests (graphql-transport-ws); false when not one. */
  upgrade: (request: Request, server: Server<SocketData>) => boolean | Promise<boolean>
  websocket: WebSocketHandler<SocketData>
  /** Ends every subscription (they complete) and stops polling the event log. */
  close: () => void
}

/** What Yoga logs: expected errors are answers, not news; failures go to the server's log. */
function logger(log: (error: unknown) => void): YogaLogger {
  const ignore = () => {}
  return { debug: ignore, info: ignore, warn: ignore, error: (...args: unknown[]) => log(args.at(-1)) }
}

const ALLOW = 'GET, POST, OPTIONS'

/** Where `fetch` hands Yoga a POST's JSON text (in the server context). */
const CHECKED_JSON = 'checkedJson'

const badBody = (message: string, extensions: Record<string, unknown> = {}) =>
  new GraphQLError(message, { extensions: { http: { status: 400 }, code: 'BAD_REQUEST', ...extensions } })

/** The GraphQL parameters of a POST's JSON text, with the answers Yoga's own JSON parser gives. */
function parseParams(text: string): GraphQLParams {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch (error) {
    const { name, message } = error as Error
    throw badBody('POST body sent invalid JSON.', {
      http: { spec: true, status: 400 },
      originalError: { name, message },
    })
  }
  if (body === null || typeof body !== 'object')
    throw badBody(`POST body is expected to be object but received ${body === null ? body : typeof body}`)
  return body as GraphQLParams
}

/**
 * A JSON POST's body was read and checked by the edge: Yoga's JSON parser, when it is the one
 * chosen, is replaced by one that parses that text, instead of reading the body a second time.
 */
function useCheckedJson(): Plugin {
  return {
    onRequestParse({ serverContext, requestParser, setRequestParser }) {
      const json = (serverContext as Record<string, unknown> | undefined)?.[CHECKED_JSON]
      if (typeof json === 'string' && requestParser) setRequestParser(() => parseParams(json))
    },
  }
}

/**
 * The GraphQL endpoint: graphql-yoga 5 over the generated schema, with the contract's error codes,
 * the limits, and authentication by the same bearer tokens as REST.
 */
export function createGraphQL(options: GraphQLOptions): GraphQLEndpoint {
  const { engine, verifier, log, cache } = options
  const production = options.production ?? false
  const feed = new EventFeed(engine)
  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema: serviceSchema(engine.schema),
    graphqlEndpoint: GRAPHQL_PATH,
    // Over HTTP the token is in the request; a WebSocket passes the principal of its connection_init.
    context: async (initial) => {
      const given = (initial as { auth?: Authentication }).auth
      const auth = given ?? (await authenticate(verifier, initial.request.headers.get('authorization')))
      return operationContext(engine, feed, auth)
    },
    maskedErrors: { maskError: (error) => maskError(error) },
    // Yoga's GraphiQL page loads its scripts from a CDN; the binary serves no external assets.
    graphiql: false,
    landingPage: false,
    // CORS belongs to the HTTP edge, the same for every path.
    cors: false,
    logging: logger(log),
    // The edge limits every body (server/http/limits.ts); a second limit would copy the stream.
    maxRequestBodySize: false,
    plugins: [
      useCheckedJson(),
      useContractErrorCodes(),
      ...limitPlugins(production),
      ...(cache ? [useKeptAnswers(engine.schema.resources)] : []),
    ],
  })
  const sockets = graphqlWebSocket({ yoga, engine, verifier, limiter: options.limiter, log })
  return {
    fetch: async (request, json) => {
      // Preflights carry no token; the answer lists what the endpoint takes.
      if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { Allow: ALLOW } })
      const run = (principal?: Principal, ticket?: Ticket) => {
        const server: Record<string, unknown> = {}
        if (json !== undefined) server[CHECKED_JSON] = json
        // Verified already: the context need not verify the token again.
        if (principal !== undefined) server.auth = { principal } satisfies Authentication
        if (ticket !== undefined) server[TICKET] = ticket
        return yoga.fetch(request, server)
      }
      if (cache === undefined || (request.method !== 'GET' && request.method !== 'POST')) return run()
      return cachedOperation({ cache, verifier, request, json, run })
    },
    upgrade: sockets.upgrade,
    websocket: sockets.handler,
    close: () => {
      feed.close()
      sockets.closeAll()
    },
  }
}
