/**
 * OpenID Connect discovery (OpenID Connect Discovery 1.0 §4) and ID token checks (OpenID Connect
 * Core 1.0 §3.1.3.7), shared by Google, Microsoft and any `oidc` issuer.
 */
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose'

/** Every request to a provider gives up after this long: the person sees a 503 page, not a hang. */
export const UPSTREAM_TIMEOUT_MS = 5000

/** Why an outside sign-in failed: the provider could not be reached, or what it answered is refused. */
export class UpstreamError extends Error {
  override name = 'UpstreamError'
  constructor(
    readonly kind: 'unavailable' | 'refused',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

export interface Discovery {
  issuer: string
  authorizationEndpoint: string
  tokenEndpoint: string
  jwks: ReturnType<typeof createRemoteJWKSet>
}

const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0

/**
 * The issuer's discovery document, fetched on first use and kept; a failure is not kept, so the
 * next sign-in asks again. `issuer` must be what the document says it is (§4.3).
 */
export function discoverer(issuer: string, sameIssuer = true): () => Promise<Discovery> {
  let found: Promise<Discovery> | null = null
  return () => {
    found ??= discover(issuer, sameIssuer).catch((error) => {
      found = null
      throw error
    })
    return found
  }
}

/**
 * `sameIssuer` false for Microsoft: a tenant named by its domain, `common` or `organizations`
 * publishes its GUID's issuer (or the `{tenantid}` template), which the ID token check then uses.
 */
async function discover(issuer: string, sameIssuer: boolean): Promise<Discovery> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`
  let document: Record<string, unknown>
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS) })
    if (!response.ok) throw new Error(`discovery answered ${response.status}`)
    document = (await response.json()) as Record<string, unknown>
  } catch (error) {
    throw new UpstreamError('unavailable', 'the discovery document could not be fetched', { cause: error })
  }
  const { authorization_endpoint, token_endpoint, jwks_uri } = document
  const named = document.issuer
  if (
    !text(named) ||
    (sameIssuer && named !== issuer) ||
    !text(authorization_endpoint) ||
    !text(token_endpoint) ||
    !text(jwks_uri)
  )
    throw new UpstreamError('unavailable', 'the discovery document is not one of this issuer')
  return {
    issuer: named,
    authorizationEndpoint: authorization_endpoint,
    tokenEndpoint: token_endpoint,
    jwks: createRemoteJWKSet(new URL(jwks_uri), { timeoutDuration: UPSTREAM_TIMEOUT_MS }),
  }
}

/**
 * The ID token's claims once its signature (against the issuer's JWKS), `iss`, `aud`, `exp`,
 * `nonce` and, with several audiences, `azp` hold. `issuerOf` gives the expected issuer from the
 * claims, for Microsoft's multi-tenant `{tenantid}` template.
 */
export async function verifyIdToken(
  discovery: Discovery,
  idToken: string,
  expected: { clientId: string; nonce: string; issuerOf?: (claims: JWTPayload) => string },
): Promise<JWTPayload> {
  let payload: JWTPayload
  try {
    ;({ payload } = await jwtVerify(idToken, discovery.jwks, {
      audience: expected.clientId,
      algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA', 'RS384', 'RS512', 'ES384', 'ES512'],
      clockTolerance: 60,
      ...(expected.issuerOf ? {} : { issuer: discovery.issuer }),
    }))
  } catch (error) {
    if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError))
      throw new UpstreamError('unavailable', 'the signing keys could not be fetched', { cause: error })
    throw new UpstreamError('refused', 'the ID token is not valid', { cause: error })
  }
  if (expected.issuerOf && payload.iss !== expected.issuerOf(payload))
    throw new UpstreamError('refused', 'the ID token is from another issuer')
  if (payload.nonce !== expected.nonce)
    throw new UpstreamError('refused', 'the ID token is for another sign-in')
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud]
  if (audiences.length > 1 && payload.azp !== expected.clientId)
    throw new UpstreamError('refused', 'the ID token was issued to another client')
  if (!text(payload.sub)) throw new UpstreamError('refused', 'the ID token names no subject')
  return payload
}

/** Runs a request to a provider with the same deadline as the others: past it, the provider is down. */
export async function withDeadline<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new UpstreamError('unavailable', 'the provider did not answer in time')),
      UPSTREAM_TIMEOUT_MS,
    )
  })
  try {
    return await Promise.race([work, deadline])
  } finally {
    clearTimeout(timer)
  }
}
