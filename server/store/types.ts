import type {
  Aggregate,
  AggregateRow,
  AggregateSortKey,
  GroupKey,
  HavingCondition,
} from '../../shared/query/aggregate-types.ts'
import type { Condition, SortKey } from '../../shared/query/types.ts'
import type { Actor } from '../../shared/resources/events.ts'

/**
 * What the store takes and gives, whichever backend runs it: entities (the API's JSON shape),
 * the internal query (`shared/query`), and the OAuth, idempotency and stored-query state. Rows,
 * columns and SQL stay in the backend's folder (`sqlite/`).
 */

/** A sort value as cursors carry it and `after` takes it (a boolean is 0 or 1). */
export type SortValue = string | number | null

// records
/**
 * Records as the engine sees them: entities (the API's JSON shape, camelCase fields in declaration
 * order) and the organization they belong to.
 */
export type Entity = Record<string, unknown>

/** A record and its organization (which callers compare with the principal's: 403 or 404). */
export interface StoredRecord {
  /** Null for the service's own rows of no organization (the command-line client). */
  orgId: string | null
  entity: Entity
}

export interface PageRequest {
  where: Condition[]
  /** Free text for the resource's full-text index. */
  search?: string
  sort: SortKey[]
  limit: number
  offset?: number
  /** Keyset: the sort values (ending with the id) of the row the page starts after. */
  after?: SortValue[]
  /** The fields to read (`id`, the timestamps and the sort fields always are); every field when absent. */
  columns?: readonly string[]
}

/** Counts and sums per group of an organization's records (server/store/compile-aggregate.ts). */
export interface AggregateRequest {
  where: Condition[]
  search?: string
  groupBy: GroupKey[]
  aggregates: Aggregate[]
  having?: HavingCondition
  /** The whole order: the asked keys, then every group key not among them (pages are stable). */
  sort: AggregateSortKey[]
  limit: number
  offset?: number
  /** The values, in the order of `sort`, of the group the page starts after (a boolean is 0 or 1). */
  after?: SortValue[]
  /** Also count every group (all pages): `total` of the answer. */
  includeTotal: boolean
}

export interface AggregateAnswer {
  rows: AggregateRow[]
  /** How many groups there are in all, when asked for; null otherwise. */
  total: number | null
}

/** What a create stores: the field values (absent ones are null) besides id, organization and time. */
export interface NewRecord {
  id: string
  orgId: string
  values: Record<string, unknown>
  now: string
}

/** An action's change of a state field: to `to`, from one of `from` (shared/resources/define.ts). */
/** A declared action's state change; an action without a field (the server's own) has none. */
export interface StateChange {
  field?: string
  from?: readonly unknown[]
  to?: unknown
}

export interface ChildPagesRequest {
  where: Condition[]
  search?: string
  sort: SortKey[]
  /** Rows per parent (callers ask one extra to see whether more follow). */
  limit: number
  /** The fields to read (`id`, the timestamps, the parent and the sort fields always are); every field when absent. */
  columns?: readonly string[]
}

// events
/** What one change appends to the log (`order.created` with the order as `data`). */
export interface NewEvent {
  id: string
  orgId: string
  now: string
  type: string
  resource: string
  resourceId: unknown
  data: Entity
  /** Who made the change; null only for events appended before actors were recorded. */
  actor: Actor | null
  /** The X-Request-Id of the request that made it; null when no request did (admin commands). */
  requestId: string | null
}

/** Which events a reader wants; an absent list keeps every event. */
export interface EventFilter {
  /** Event types (`order.created`); an empty list, like none, keeps all (the subscription's `types`). */
  types?: readonly string[]
  /** Collections the events are about (`orders`); an empty list keeps none (nothing readable). */
  resources?: readonly string[]
}

// idempotency
/** Contract: a key is kept 24 hours per organization, client and user, then purged. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000

/** The answer a key replays: status, headers and body, exactly as first sent. */
export interface StoredResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Whose key it is: the same key string from another user or client is another key. */
export interface KeyId {
  orgId: string
  clientId: string
  /** The user a token was issued for, or the client itself for a client-credentials token. */
  subject: string
  key: string
}

export interface StoredAnswer {
  requestHash: string
  response: StoredResponse
}

// oauth clients
/** The CLI's public client, present in every database (contract: created by every migration run). */
export const CLI_CLIENT_ID = 'api-cli'
/** The web console's public client (server/console/), registered at every start with its base URL. */
export const CONSOLE_CLIENT_ID = 'api-console'

export const GRANT_TYPES = [
  'client_credentials',
  'authorization_code',
  'refresh_token',
  'urn:ietf:params:oauth:grant-type:device_code',
] as const
export type GrantType = (typeof GRANT_TYPES)[number]

/** The grants a client gets when it names none: a public client's browser flow, or a service's own. */
export const defaultGrantTypes = (isPublic: boolean): GrantType[] =>
  isPublic ? ['authorization_code', 'refresh_token'] : ['client_credentials']

export interface OAuthClient {
  id: string
  orgId: string | null
  name: string
  public: boolean
  redirectUris: string[]
  grantTypes: GrantType[]
  /** The scopes this client may ask for. */
  scope: string[]
}

/** A client as the admin commands list it: never its secret, and revoked ones too. */
export interface ListedClient extends OAuthClient {
  createdAt: string
  /** When `api-server client revoke` disabled it; null while it is live. */
  revokedAt: string | null
}

export interface NewClient {
  name: string
  orgId: string | null
  public: boolean
  redirectUris?: string[]
  grantTypes?: GrantType[]
  scope?: string[]
}

/** An authorization code's binding (RFC 6749 §4.1.3): who, for which client, redirect URI and PKCE challenge. */
export interface AuthorizationCode {
  orgId: string
  clientId: string
  userId: string
  redirectUri: string
  codeChallenge: string | null
  scope: string[]
  expiresAt: number
  /** Set once redeemed. */
  usedAt: number | null
  /** The grant the first redemption created. */
  grantId: string | null
}

export type DeviceCodeStatus = 'pending' | 'approved' | 'denied' | 'redeemed'

/** One device authorization (RFC 8628 §3.2) and what the user decided. */
export interface DeviceCode {
  hash: string
  userCode: string
  clientId: string
  requestedScope: string | null
  status: DeviceCodeStatus
  orgId: string | null
  userId: string | null
  /** Granted scope, once approved. */
  scope: string[]
  interval: number
  lastPolledAt: number | null
  expiresAt: number
}

/** What one user allowed one client: the family of every token issued from one authorization. */
export interface Grant {
  id: string
  orgId: string
  clientId: string
  userId: string
  scope: string[]
  expiresAt: number
  revoked: boolean
}

export interface RefreshTokenRecord {
  grantId: string
  expiresAt: number
  used: boolean
}

export type Role = 'admin' | 'member' | 'viewer'

/** A user as the login and consent pages see them. */
export interface LoginUser {
  id: string
  orgId: string
  orgName: string
  email: string
  name: string
  role: Role
  passwordHash: string | null
}

/** A user as `api-server user list` shows them: whether they have a password, never its hash. */
export interface ListedUser {
  id: string
  email: string
  name: string
  role: Role
  hasPassword: boolean
  createdAt: string
}

// stored queries
/** A stored query expires this long after it was last sent or run (docs/query.md). */
export const STORED_QUERY_TTL_MS = 30 * 24 * 3600 * 1000

/** A QUERY body kept so that GET on its `Location` runs it again (docs/query.md). */
export interface StoredQuery {
  id: string
  orgId: string
  createdBy: string
  /** The path the QUERY was sent to (`/api/v1/orders`, `/api/v1/search`). */
  target: string
  mediaType: string
  body: string
  createdAt: string
  updatedAt: string
}

/** One QUERY response, kept for GET on its `Content-Location` until it expires. */
export interface StoredResult {
  queryId: string
  orgId: string
  headers: Record<string, string>
  body: string
  expiresAt: string
}

export interface Org {
  id: string
  name: string
}

export interface ListedOrg extends Org {
  createdAt: string
}

/**
 * An organization name in use, in any case (`acme` when `Acme` exists): the admin commands find
 * organizations by name (`--org Acme`).
 */
export class OrgNameTakenError extends Error {
  override name = 'OrgNameTakenError'
}

export interface KeyRow {
  kid: string
  private_jwk: string
  public_jwk: string
  created_at: string
  retired_at: string | null
}

/**
 * What an acknowledged write survives (docs/operations.md, "Durability"). `full`, the default:
 * every commit is synced to disk before it is acknowledged, so a power cut or kernel crash loses
 * nothing that got its 2xx. `fast` (`serve --durability fast`): the write-ahead log is synced only
 * at checkpoints, so a crash of the process loses nothing but a power cut may lose the last commits.
 */
export type Durability = 'full' | 'fast'

export const DURABILITIES: readonly Durability[] = ['full', 'fast']

/** A database or backup file that cannot be used. The message is one line and names the path. */
export class DatabaseFileError extends Error {
  override name = 'DatabaseFileError'
}

/**
 * A write that would give a unique field (`sku`, `email`) a value another record of the
 * organization holds: a concurrent write took it between the check and this write.
 */
export class UniqueTakenError extends Error {
  override name = 'UniqueTakenError'
  constructor(readonly field: string) {
    super(`${field} is already taken`)
  }
}

/** Where a webhook endpoint follows its organization's event log. */
export interface EndpointCursor {
  id: string
  orgId: string
  /** The event types it wants; empty for all. */
  eventTypes: string[]
  /** The last position of the log it has deliveries for. */
  position: number
}

/** An event on its way to an endpoint, as the worker queues it. */
export interface NewDelivery {
  id: string
  orgId: string
  endpointId: string
  eventId: string
  eventType: string
  /** The body every attempt POSTs: `{id, type, createdAt, data}`. */
  payload: string
}

/** A delivery leased for one attempt. */
export interface ClaimedDelivery {
  id: string
  orgId: string
  endpointId: string
  eventId: string
  /** Attempts made before this one. */
  attempts: number
  payload: string
  url: string
}

/** What an attempt came to. */
export interface DeliveryOutcome {
  status: 'pending' | 'succeeded' | 'failed'
  responseStatus: number | null
  error: string | null
  /** When the next attempt is due (pending), null otherwise. */
  nextAttemptAt: string | null
}
