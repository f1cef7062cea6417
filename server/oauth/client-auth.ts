import type { OAuthClient } from '../store/types.ts'
import type { OAuthContext } from './context.ts'
import { OAuthError } from './errors.ts'

const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' }

function invalidClient(): OAuthError {
  // One message for unknown client and wrong secret, so the endpoint does not reveal which ids exist.
  return new OAuthError('invalid_client', 'Client authentication failed.', 401, BASIC_CHALLENGE)
}

/** Longer ids are no client's: they share one window, so made-up ids cannot fill memory. */
const MAX_KEY_LENGTH = 128

/**
 * The lock-out after too many failed client authentications. RFC 6749 defines no token-endpoint
 * error for it: `temporarily_unavailable` (its §4.1.2.1) says "try again later" without claiming
 * the credentials are wrong, since a right secret gets it too (docs/oauth.md, "Rate limits").
 */
function lockedOut(retryAfterS: number): OAuthError {
  return new OAuthError(
    'temporarily_unavailable',
    `Too many failed authentications of this client; try again in ${retryAfterS} s.`,
    429,
    { 'Retry-After': String(retryAfterS) },
  )
}

/**
 * A client authenticated by its secret, unless failures for its id (known or not) have locked
 * the id out: then the secret is not even compared. A success resets nothing, so a guesser
 * cannot clear the count by interleaving with the real client.
 */
async function bySecret(
  ctx: Pick<OAuthContext, 'store' | 'limits'>,
  id: string,
  secret: string,
): Promise<OAuthClient> {
  const throttle = ctx.limits.clientSecretPerClient
  const key = id.slice(0, MAX_KEY_LENGTH)
  const wait = await throttle.retryAfter(key)
  if (wait > 0) throw lockedOut(wait)
  const client = await ctx.store.clients.authenticate(id, secret)
  if (client) return client
  await throttle.fail(key)
  throw invalidClient()
}

/** RFC 6749 §2.3.1: Basic credentials are form-urlencoded before base64. */
function parseBasic(header: string): { id: string; secret: string } {
  const match = /^Basic +([A-Za-z0-9+/]+=*)$/i.exec(header.trim())
  if (!match) throw invalidClient()
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon < 0) throw invalidClient()
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    }
  } catch {
    throw invalidClient()
  }
}

/**
 * Identifies the client of a token-endpoint request: HTTP Basic (`client_secret_basic`), body
 * parameters (`client_secret_post`), or `client_id` alone for a public client. Using two methods
 * at once is invalid_request (RFC 6749 §2.3). Secrets are throttled per client id (`bySecret`).
 */
export async function identifyClient(
  ctx: Pick<OAuthContext, 'store' | 'limits'>,
  request: Request,
  form: Map<string, string>,
): Promise<OAuthClient> {
  const header = request.headers.get('authorization')
  const postSecret = form.get('client_secret')
  if (header) {
    if (postSecret !== undefined) {
      throw new OAuthError('invalid_request', 'Use one client authentication method, not two.')
    }
    const { id, secret } = parseBasic(header)
    const formId = form.get('client_id')
    if (formId !== undefined && formId !== id)
      throw new OAuthError('invalid_request', 'client_id does not match the credentials.')
    return await bySecret(ctx, id, secret)
  }
  const id = form.get('client_id')
  if (!id) throw invalidClient()
  if (postSecret !== undefined) return await bySecret(ctx, id, postSecret)
  // A public client proves nothing by its id, so there is nothing to guess and nothing throttled.
  const client = await ctx.store.clients.find(id)
  if (!client?.public) throw invalidClient()
  return client
}
