import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose'
import { ApiError, insufficientScope, unauthorized } from '../../shared/errors.ts'
import { ACCESS_TOKEN_TTL_S, type KeyRing } from './keys.ts'

/** Who is calling: the subject of a verified access token. */
export interface Principal {
  /** `system` is what admin commands act as (server/admin/system.ts); no token stands for it. */
  kind: 'user' | 'client' | 'system'
  /** User id for user tokens, client id for client-credentials tokens, `api-server` for the system. */
  subject: string
  orgId: string
  clientId: string
  scopes: ReadonlySet<string>
  /** Expiry, in seconds since the epoch. */
  expiresAt: number
  /** The grant (token family) a user token came from: its `sid` claim. */
  grantId?: string
  /** The token's `jti`. */
  tokenId?: string
}

export interface TokenSettings {
  issuer: string
  audience: string
  keys: KeyRing
  clock?: () => number
  /**
   * Asked on every request, cached token or not, so that revocation (RFC 7009), a reused refresh
   * token or a reused code takes effect at once for the access tokens already issued, and a
   * user's role caps their token's scopes as it is now: what the token stands for now, null when
   * revoked (server/auth/current-access.ts). Without it a token stands for what it was issued with.
   */
  current?: (principal: Principal) => Principal | null | Promise<Principal | null>
}

interface IssuedToken {
  accessToken: string
  expiresIn: number
}

/** Issues an RFC 9068 JWT access token (`typ: at+jwt`, ES256). */
export async function issueAccessToken(
  settings: TokenSettings,
  grant: { subject: string; orgId: string; clientId: string; scope: string[]; grantId?: string },
): Promise<IssuedToken> {
  const { kid, key } = await settings.keys.signingKey()
  const now = Math.floor((settings.clock ?? Date.now)() / 1000)
  const accessToken = await new SignJWT({
    client_id: grant.clientId,
    scope: grant.scope.join(' '),
    org_id: grant.orgId,
    // The grant it came from, checked on every request; client-credentials tokens have none.
    ...(grant.grantId === undefined ? {} : { sid: grant.grantId }),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuer(settings.issuer)
    .setAudience(settings.audience)
    .setSubject(grant.subject)
    .setIssuedAt(now)
    .setExpirationTime(now + ACCESS_TOKEN_TTL_S)
    .setJti(encodeBase64urlNoPadding(crypto.getRandomValues(new Uint8Array(16))))
    .sign(key)
  return { accessToken, expiresIn: ACCESS_TOKEN_TTL_S }
}

/** Bounded caches of verified tokens: a JWT cannot change, so one verification serves until expiry. */
const CACHE_LIMIT = 10_000

export class TokenVerifier {
  private cache = new Map<string, Principal>()
  /**
   * The same principals by the whole `Authorization` header that carried them: a client repeats
   * its header byte for byte, so a hit skips parsing the header (every request asks, twice).
   */
  private byHeader = new Map<string, Principal>()

  constructor(private readonly settings: TokenSettings) {}

  /**
   * Verifies signature, type, issuer, audience and expiry, and that the token was not revoked;
   * throws a 401 ApiError otherwise. The principal's scopes are those the user's role allows now.
   */
  async verify(token: string): Promise<Principal> {
    return this.now(await this.genuine(token))
  }

  /**
   * `verify` for an `Authorization` header (RFC 6750 §2.1): 401 with the bare challenge when it
   * holds no bearer token. Synchronous when the header was seen before.
   */
  verifyHeader(header: string | null): Principal | Promise<Principal> {
    const known = this.knownHeader(header)
    if (known) return this.now(known)
    // Remembered as issued: what it stands for now is worked out on every request.
    return this.genuine(bearerToken(header)).then((principal) => this.now(this.remember(header!, principal)))
  }

  /**
   * The principal of a token this server issued and that has not expired, as issued (no
   * revocation or role look-up); undefined otherwise. The rate limiter keys on it, so made-up
   * tokens cannot dodge the per-address limit. Synchronous when the header was seen before.
   */
  authentic(header: string | null): Principal | undefined | Promise<Principal | undefined> {
    if (header === null) return undefined
    const known = this.knownHeader(header)
    if (known) return known
    const token = bearerTokenOf(header)
    if (token === undefined) return undefined
    return this.genuine(token).then(
      (principal) => this.remember(header, principal),
      () => undefined,
    )
  }

  /** The verified token as it stands now: 401 when revoked, scopes capped by the role. */
  private now(principal: Principal): Principal | Promise<Principal> {
    const current = this.settings.current
    if (current === undefined) return principal
    const now = current(principal)
    // Synchronous while the answer is cached (docs/oauth.md): most requests never wait here.
    return now instanceof Promise ? now.then(stillValid) : stillValid(now)
  }

  /** A cached principal for the header while its token has not expired. */
  private knownHeader(header: string | null): Principal | undefined {
    if (header === null) return undefined
    const principal = this.byHeader.get(header)
    if (principal === undefined) return undefined
    if (principal.expiresAt * 1000 > (this.settings.clock ?? Date.now)()) return principal
    this.byHeader.delete(header)
    return undefined
  }

  private remember(header: string, principal: Principal): Principal {
    if (this.byHeader.size >= CACHE_LIMIT) this.byHeader.clear()
    this.byHeader.set(header, principal)
    return principal
  }

  private async genuine(token: string): Promise<Principal> {
    const now = (this.settings.clock ?? Date.now)()
    let principal = this.cache.get(token)
    if (principal) {
      if (principal.expiresAt * 1000 <= now) {
        this.cache.delete(token)
        throw unauthorized('the token has expired')
      }
    } else {
      principal = await this.verifyUncached(token, now)
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear()
      this.cache.set(token, principal)
    }
    return principal
  }

  private async verifyUncached(token: string, now: number): Promise<Principal> {
    let kid: string | undefined
    try {
      kid = decodeProtectedHeader(token).kid
    } catch (error) {
      throw unauthorized('malformed token', { cause: error })
    }
    const key = await this.settings.keys.verifyKey(kid)
    if (!key) throw unauthorized('unknown signing key')
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['ES256'],
        typ: 'at+jwt',
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        currentDate: new Date(now),
        requiredClaims: ['sub', 'exp', 'iat', 'client_id', 'scope', 'org_id'],
      })
      const { sub, exp, client_id, scope, org_id, sid, jti } = payload
      if (
        typeof sub !== 'string' ||
        typeof client_id !== 'string' ||
        typeof scope !== 'string' ||
        typeof org_id !== 'string' ||
        (sid !== undefined && typeof sid !== 'string')
      ) {
        throw unauthorized('malformed claims')
      }
      return {
        kind: sub.startsWith('usr_') ? 'user' : 'client',
        subject: sub,
        orgId: org_id,
        clientId: client_id,
        scopes: new Set(scope.split(' ').filter(Boolean)),
        expiresAt: exp!,
        ...(sid === undefined ? {} : { grantId: sid }),
        ...(jti === undefined ? {} : { tokenId: jti }),
      }
    } catch (error) {
      if (error instanceof ApiError) throw error
      if (error instanceof errors.JWTExpired) throw unauthorized('the token has expired', { cause: error })
      if (error instanceof errors.JWTClaimValidationFailed)
        throw unauthorized(`claim ${error.claim} is not valid`, { cause: error })
      throw unauthorized('the signature or format is not valid', { cause: error })
    }
  }
}

/** The token of `Authorization: Bearer <token>` (RFC 6750 §2.1), or undefined. */
/** The token of `Authorization: Bearer <token68>` (RFC 6750 §2.1), or undefined for any other header or none. */
export function bearerTokenOf(header: string | null): string | undefined {
  return header ? /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header.trim())?.[1] : undefined
}

/** Reads `Authorization: Bearer <token>` (RFC 6750 §2.1). */
export function bearerToken(header: string | null): string {
  const token = bearerTokenOf(header)
  // RFC 6750 §3.1: no bearer token (none, another scheme, or not token68) gets the bare challenge.
  if (token === undefined) throw unauthorized()
  return token
}

/** 403 unless the principal holds `scope`. */
export function requireScope(principal: Principal, scope: string): void {
  if (principal.scopes.has(scope)) return
  throw insufficientScope(scope)
}

function stillValid(principal: Principal | null): Principal {
  if (principal === null) throw unauthorized('the token has been revoked')
  return principal
}
