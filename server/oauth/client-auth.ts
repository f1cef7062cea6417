import { authenticateClient, findClient, type OAuthClient } from '../store/clients.ts'
import type { Database } from '../store/db.ts'
import { OAuthError } from './errors.ts'

const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="oauth", charset="UTF-8"' }

function invalidClient(): OAuthError {
  // One message for unknown client and wrong secret, so the endpoint does not reveal which ids exist.
  return new OAuthError('invalid_client', 'Client authentication failed.', 401, BASIC_CHALLENGE)
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
 * at once is invalid_request (RFC 6749 §2.3).
 */
export function identifyClient(db: Database, request: Request, form: Map<string, string>): OAuthClient {
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
    const client = authenticateClient(db, id, secret)
    if (!client) throw invalidClient()
    return client
  }
  const id = form.get('client_id')
  if (!id) throw invalidClient()
  if (postSecret !== undefined) {
    const client = authenticateClient(db, id, postSecret)
    if (!client) throw invalidClient()
    return client
  }
  const client = findClient(db, id)
  if (!client?.public) throw invalidClient()
  return client
}
