import type { Schema } from '../../shared/schema/schema.ts'
import type { Tx } from '../store/store.ts'
import type { OAuthClient } from '../store/types.ts'
import { OAuthError } from './errors.ts'
import { checkChallenge } from './pkce.ts'
import { redirectUriMatches } from './redirect-uri.ts'
import { intersectScope, parseScope } from './scopes.ts'

/** A checked authorization request (RFC 6749 §4.1.1 with RFC 7636). */
export interface AuthorizationRequest {
  client: OAuthClient
  redirectUri: string
  state: string | undefined
  /** What was asked and the client may have; null when nothing was asked (then: all the client may have). */
  scope: string[] | null
  codeChallenge: string | null
}

/**
 * An authorization request that cannot be answered. Without a client and a redirect URI that
 * are certainly the client's (RFC 6749 §4.1.2.1), the error is shown to the user and the
 * browser is not redirected anywhere (no open redirector, RFC 9700 §4.11); otherwise it goes
 * back to the client (`redirect`).
 */
export class AuthorizationRequestError extends Error {
  constructor(
    message: string,
    readonly redirect?: { uri: string; state: string | undefined; error: OAuthError },
  ) {
    super(message)
    this.name = 'AuthorizationRequestError'
  }
}

/** Checks the query of GET /oauth/authorize. */
export async function parseAuthorizationRequest(
  schema: Schema,
  store: Tx,
  params: URLSearchParams,
): Promise<AuthorizationRequest> {
  const one = (name: string) => params.get(name) ?? undefined
  const repeated = [...new Set([...params.keys()].filter((k) => params.getAll(k).length > 1))]
  const clientId = one('client_id')
  if (!clientId)
    throw new AuthorizationRequestError('The request names no application (client_id is missing).')
  if (repeated.includes('client_id') || repeated.includes('redirect_uri'))
    throw new AuthorizationRequestError('The request names more than one application or return address.')
  const client = await store.clients.find(clientId)
  if (!client) throw new AuthorizationRequestError('The application that sent you here is not registered.')
  const redirectUri = one('redirect_uri')
  if (!redirectUri)
    throw new AuthorizationRequestError('The request has no return address (redirect_uri is missing).')
  if (!redirectUriMatches(client.redirectUris, redirectUri))
    throw new AuthorizationRequestError('The return address is not registered for this application.')

  const state = one('state')
  const fail = (error: OAuthError) =>
    new AuthorizationRequestError(error.description, { uri: redirectUri, state, error })
  try {
    if (repeated.length > 0)
      throw new OAuthError('invalid_request', `Repeated parameter: ${repeated.join(', ')}.`)
    if (params.has('request') || params.has('request_uri'))
      throw new OAuthError('invalid_request', 'Request objects (request, request_uri) are not supported.')
    const responseType = one('response_type')
    if (!responseType) throw new OAuthError('invalid_request', 'response_type is required.')
    // RFC 9700 §2.1.2: no implicit grant; `code` is the only response type.
    if (responseType !== 'code')
      throw new OAuthError('unsupported_response_type', 'Only response_type=code is supported.')
    const responseMode = one('response_mode')
    if (responseMode !== undefined && responseMode !== 'query')
      throw new OAuthError('invalid_request', 'Only response_mode=query is supported.')
    if (!client.grantTypes.includes('authorization_code'))
      throw new OAuthError('unauthorized_client', 'This client may not use the authorization code grant.')
    const codeChallenge = checkChallenge(one('code_challenge'), one('code_challenge_method'), client.public)
    const asked = parseScope(schema, one('scope'))
    const scope = asked === null ? null : intersectScope(schema, asked, client.scope)
    if (scope !== null && scope.length === 0)
      throw new OAuthError('invalid_scope', 'This client may ask for none of the requested scopes.')
    return { client, redirectUri, state, scope, codeChallenge }
  } catch (error) {
    if (error instanceof OAuthError) throw fail(error)
    throw error
  }
}

/**
 * The authorization response (RFC 6749 §4.1.2, §4.1.2.1) as the URL to send the browser to:
 * the parameters are added to the redirect URI's query, with `iss` (RFC 9207) always.
 */
export function authorizationResponseUrl(
  redirectUri: string,
  issuer: string,
  params: Record<string, string | undefined>,
): string {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, value)
  query.set('iss', issuer)
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}${query}`
}
