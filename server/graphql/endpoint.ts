import type { Server, WebSocketHandler } from 'bun'
import { createYoga, type YogaLogger } from 'graphql-yoga'
import type { TokenVerifier } from '../auth/tokens.ts'
import type { RequestQuota } from '../http/rate-limit.ts'
import type { EngineContext } from '../resources/context.ts'
import { EventFeed } from '../resources/event-feed.ts'
import { type Authentication, authenticate, type GraphQLContext, operationContext } from './context.ts'
import { maskError, useContractErrorCodes } from './errors.ts'
import { limitPlugins } from './limits.ts'
import { GRAPHQL_PATH } from './names.ts'
import { serviceSchema } from './schema.ts'
import { graphqlWebSocket, type SocketData } from './websocket.ts'

export interface GraphQLOptions {
  engine: EngineContext
  verifier: TokenVerifier
  /** The HTTP edge's quota, which operations over WebSocket count against too; none when off. */
  limiter?: RequestQuota
  log: (error: unknown) => void
  /** No introspection, no field suggestions. */
  production?: boolean
}

export interface GraphQLEndpoint {
  /** `/graphql` over HTTP: POST, GET (queries), and subscriptions as Server-Sent Events. */
  fetch: (request: Request) => Promise<Response>
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

/**
 * The GraphQL endpoint: graphql-yoga 5 over the generated schema, with the contract's error codes,
 * the limits, and authentication by the same bearer tokens as REST.
 */
export function createGraphQL(options: GraphQLOptions): GraphQLEndpoint {
  const { engine, verifier, log } = options
  const production = options.production ?? false
  const feed = new EventFeed(engine)
  const yoga = createYoga<Record<string, unknown>, GraphQLContext>({
    schema: serviceSchema(),
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
    plugins: [useContractErrorCodes(), ...limitPlugins(production)],
  })
  const sockets = graphqlWebSocket({ yoga, engine, verifier, limiter: options.limiter, log })
  return {
    fetch: async (request) => {
      // Preflights carry no token; the answer lists what the endpoint takes.
      if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: { Allow: ALLOW } })
      return yoga.fetch(request)
    },
    upgrade: sockets.upgrade,
    websocket: sockets.handler,
    close: () => {
      feed.close()
      sockets.closeAll()
    },
  }
}
