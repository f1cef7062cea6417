import type { Principal } from '../auth/tokens.ts'

/**
 * What the edge worked out about a request, handed to its route so that nothing is done twice:
 * the parsed URL, the principal its token stands for now (verified, not revoked, scopes capped by
 * the role), and the response cache's key and stamp when the cache was asked and had nothing.
 */
export interface EdgeState {
  url: URL
  principal?: Principal
  /** The look-up of a known token's principal the edge started (its revocation or role was not cached). */
  verifying?: Promise<Principal>
  cached?: { key: string; stamp: number }
}

const states = new WeakMap<Request, EdgeState>()

export function setEdgeState(request: Request, state: EdgeState): void {
  states.set(request, state)
}

/** The edge's state of the request a route is handling; undefined when it came another way (tests' app.fetch of a route alone). */
export function edgeStateOf(request: Request): EdgeState | undefined {
  return states.get(request)
}
