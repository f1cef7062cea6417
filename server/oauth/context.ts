import type { Schema } from '../../shared/schema/schema.ts'
import type { TokenSettings, TokenVerifier } from '../auth/tokens.ts'
import type { RedisConnection } from '../http/redis-connection.ts'
import type { IdpProviders } from '../idp/context.ts'
import type { Tx } from '../store/store.ts'
import { type CookieNames, cookieNames } from './cookies.ts'
import { type OAuthLimits, oauthLimits } from './rate-limit.ts'
import { Signer } from './signer.ts'

/** Everything the authorization server's endpoints and pages share. */
export interface OAuthContext {
  /** The resources served: the scopes a client may ask for. */
  schema: Schema
  store: Tx
  /** The issuer: the base URL, without a trailing slash. */
  issuer: string
  tokens: TokenSettings
  verifier: TokenVerifier
  clock: () => number
  log: (error: unknown) => void
  signer: Signer
  cookies: CookieNames
  limits: OAuthLimits
  /** `serve --idp`: the outside identity providers, in the file's order; empty without one. */
  idp: IdpProviders
}

export async function createOAuthContext(
  options: Pick<OAuthContext, 'schema' | 'store' | 'issuer' | 'tokens' | 'verifier' | 'clock' | 'log'> &
    Partial<Pick<OAuthContext, 'idp'>>,
  /** `serve --redis`: the throttles counted in Redis, shared by every replica. */
  redis?: RedisConnection,
): Promise<OAuthContext> {
  return {
    ...options,
    idp: options.idp ?? new Map(),
    // One key for the login cookie and the signed hidden fields, kept in the database so that
    // every instance on it (and a restart) accepts what another one signed.
    signer: new Signer(await options.store.settings.instanceSecret('oauth_page_key'), options.clock),
    cookies: cookieNames(options.issuer),
    limits: oauthLimits(options.clock, redis),
  }
}
