import type { Server, ServerWebSocket, WebSocketHandler } from 'bun'
import type { ExecutionArgs, GraphQLError } from 'graphql'
import type { OperationResult, SubscribePayload } from 'graphql-ws'
import { handleProtocols, makeHandler } from 'graphql-ws/use/bun'
import type { YogaServerInstance } from 'graphql-yoga'
import type { TokenVerifier } from '../auth/tokens.ts'
import { clientAddress } from '../http/client-address.ts'
import { addressKey, principalKey, type RequestQuota, rateLimited } from '../http/rate-limit.ts'
import type { EngineContext } from '../resources/context.ts'
import { type Authentication, authenticate, type GraphQLContext } from './context.ts'
import { fromApiError, internalError, maskError } from './errors.ts'
import { CLOSE_BAD_REQUEST, messageRefusal } from './message-limits.ts'
import { GRAPHQL_PATH } from './names.ts'

/**
 * GraphQL over WebSocket (the graphql-transport-ws protocol of graphql-ws) on `/graphql`, run
 * through the same Yoga plugins (limits, error codes, masking) as HTTP. The token comes in
 * `connection_init`: `{"Authorization": "Bearer <token>"}`.
 *
 * Close codes: 4401 when connection_init carries no valid token, and when the token expires
 * (its subscriptions complete first); 4400/4403/4408/4409/4429 as graphql-ws defines them; 1011
 * for an error of the server's own, 1001 when the server shuts down.
 *
 * Rate limits (docs/operations.md): the upgrade counts against the address (it carries no token),
 * each `subscribe` against the client and user of the connection's token, as HTTP requests do;
 * an operation over the quota gets an `error` message with `RATE_LIMITED`, and the socket stays.
 */

export interface SocketData {
  auth?: Authentication
  /** connection_init's `Authorization`: each operation is authenticated with it again. */
  authorization?: string | null
  expiry?: ReturnType<typeof setTimeout>
}

const CLOSE_UNAUTHORIZED = 4401
/** After expiry, subscriptions complete themselves; the socket closes this much later. */
const EXPIRY_GRACE_MS = 500

interface SocketOptions {
  yoga: YogaServerInstance<Record<string, unknown>, GraphQLContext>
  engine: EngineContext
  verifier: TokenVerifier
  /** Undefined when rate limits are off. */
  limiter?: RequestQuota
  log: (error: unknown) => void
}

type Socket = ServerWebSocket<SocketData>
// graphql-ws declares makeHandler's result a WebSocketHandler without the type argument bun-types
// requires, so it comes typed `any`; it is these three, which take a socket whatever its data.
type SocketHandlers = Required<Pick<WebSocketHandler<SocketData>, 'open' | 'message' | 'close'>>
type Operation = Pick<
  ExecutionArgs,
  'schema' | 'document' | 'contextValue' | 'variableValues' | 'operationName'
> & {
  rootValue: {
    execute: (args: ExecutionArgs) => OperationResult
    subscribe: (args: ExecutionArgs) => OperationResult
  }
}

// graphql-ws types the socket without our per-socket data; Bun.serve is declared with SocketData.
const socketOf = (extra: { socket: unknown }) => extra.socket as Socket

/** `Authorization` from connection_init, whatever the case of its key. */
function authorizationOf(params: Readonly<Record<string, unknown>> | undefined): string | null {
  for (const [key, value] of Object.entries(params ?? {}))
    if (key.toLowerCase() === 'authorization' && typeof value === 'string') return value
  return null
}

/** One request of the connection's quota for an operation; the error when it is spent. */
async function overQuota(
  limiter: RequestQuota | undefined,
  auth: Authentication | undefined,
): Promise<GraphQLError | null> {
  if (!limiter || !auth || 'error' in auth) return null
  const state = await limiter.take(principalKey(auth.principal))
  return state.allowed ? null : fromApiError(rateLimited(state))
}

/** Errors as the client sees them: Yoga's internal `http` extension is not for the wire. */
function wireErrors(errors: readonly GraphQLError[]) {
  return errors.map((error) => {
    const json = error.toJSON()
    if (json.extensions) {
      const { http: _http, ...extensions } = json.extensions as Record<string, unknown>
      return { ...json, extensions }
    }
    return json
  })
}

export function graphqlWebSocket(options: SocketOptions): {
  upgrade: (request: Request, server: Server<SocketData>) => boolean | Promise<boolean>
  handler: WebSocketHandler<SocketData>
  /** Closes every socket (1001 Going Away), for shutdown. */
  closeAll: () => void
} {
  const { yoga, engine, verifier, limiter, log } = options
  const inner: SocketHandlers = makeHandler<Record<string, unknown>>({
    onConnect: async (ctx) => {
      const socket = socketOf(ctx.extra)
      socket.data.authorization = authorizationOf(ctx.connectionParams)
      const auth = await authenticate(verifier, socket.data.authorization)
      if ('error' in auth) {
        socket.close(CLOSE_UNAUTHORIZED, `Unauthorized: ${auth.error.message}`.slice(0, 120))
        return false
      }
      socket.data.auth = auth
      const remaining = auth.principal.expiresAt * 1000 - engine.clock()
      socket.data.expiry = setTimeout(
        () => socket.close(CLOSE_UNAUTHORIZED, 'Unauthorized: the access token has expired'),
        Math.max(0, remaining) + EXPIRY_GRACE_MS,
      )
      return true
    },
    onSubscribe: async (ctx, _id, payload: SubscribePayload) => {
      try {
        const { data } = socketOf(ctx.extra)
        const limited = await overQuota(limiter, data.auth)
        if (limited) return [limited]
        // As the token stands now: revoked, expired, or capped by the user's current role.
        const auth = await authenticate(verifier, data.authorization ?? null)
        const enveloped = yoga.getEnveloped({ auth, params: payload })
        let document: ReturnType<typeof enveloped.parse>
        try {
          document = enveloped.parse(payload.query)
        } catch (error) {
          return [maskError(error) as GraphQLError]
        }
        const errors = enveloped.validate(enveloped.schema, document)
        if (errors.length > 0) return [...errors]
        const operation: Operation = {
          schema: enveloped.schema,
          document,
          contextValue: await enveloped.contextFactory(),
          variableValues: payload.variables,
          operationName: payload.operationName,
          rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
        }
        return operation
      } catch (error) {
        // Never let an error escape: over a socket it would be an unhandled rejection.
        log(error)
        return [internalError()]
      }
    },
    // graphql-ws hands back the arguments onSubscribe returned, rootValue included.
    execute: (args) => (args.rootValue as Operation['rootValue']).execute(args),
    subscribe: (args) => (args.rootValue as Operation['rootValue']).subscribe(args),
    onNext: (_ctx, _id, _payload, _args, result) =>
      result.errors ? { ...result, errors: wireErrors(result.errors) } : undefined,
    onError: (_ctx, _id, _payload, errors) => wireErrors(errors),
  })

  const open = new Set<Socket>()
  const handler: WebSocketHandler<SocketData> = {
    open: (ws) => {
      open.add(ws)
      inner.open(ws)
    },
    message: (ws, message) => {
      // Each message is held to the limits of an HTTP body: 4400 as graphql-ws closes on a bad message.
      const refusal = messageRefusal(message)
      if (refusal !== undefined) return ws.close(CLOSE_BAD_REQUEST, refusal)
      return Promise.resolve()
        .then(() => inner.message(ws, message))
        .catch((error) => {
          log(error)
          ws.close(1011, 'Internal error')
        })
    },
    close: (ws, code, reason) => {
      open.delete(ws)
      clearTimeout(ws.data.expiry)
      return Promise.resolve()
        .then(() => inner.close(ws, code, reason))
        .catch(log)
    },
  }

  return {
    upgrade: (request, server) => {
      if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return false
      if (new URL(request.url).pathname !== GRAPHQL_PATH) return false
      const protocol = handleProtocols(request.headers.get('sec-websocket-protocol') ?? '')
      if (!protocol) return false
      // Over the address's quota the edge answers the request: a 429, as to any other.
      const upgrade = () =>
        server.upgrade(request, { data: {}, headers: { 'Sec-WebSocket-Protocol': protocol } })
      const state = limiter?.take(addressKey(clientAddress(request)))
      if (state instanceof Promise) return state.then((s) => s.allowed && upgrade())
      if (state && !state.allowed) return false
      return upgrade()
    },
    handler,
    closeAll: () => {
      for (const ws of open) ws.close(1001, 'The server is shutting down')
    },
  }
}
