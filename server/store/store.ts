import type { Condition, SortKey } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Schema } from '../../shared/schema/schema.ts'
import type { LinkedIdentity, PasskeyRow, SecondFactorPolicy, TotpRow, UserFactors } from './sql/sign-in.ts'
import type { StatementTiming } from './statement-timing.ts'
import type {
  AggregateAnswer,
  AggregateRequest,
  AuthorizationCode,
  ChildPagesRequest,
  ClaimedDelivery,
  DeliveryOutcome,
  DeviceCode,
  Durability,
  EndpointCursor,
  Entity,
  EventFilter,
  Grant,
  KeyId,
  KeyRow,
  ListedClient,
  ListedOrg,
  ListedUser,
  LoginUser,
  NewClient,
  NewDelivery,
  NewEvent,
  NewRecord,
  OAuthClient,
  Org,
  PageRequest,
  RefreshTokenRecord,
  SortValue,
  StateChange,
  StoredAnswer,
  StoredQuery,
  StoredRecord,
  StoredResult,
  WebhookBacklog,
} from './types.ts'

/**
 * The one door to the database. The engine, the front doors, the admin commands and the jobs speak
 * to it in entities, the internal query and transactions; SQL, columns and rows stay behind it, in
 * one folder per backend (`sqlite/`). docs/architecture.md, "Store interface and SQL dialects".
 */

/** An organization's records of one resource. Lookups by id cross organizations: callers decide 403 or 404. */
export interface RecordStore {
  /** One page (`limit` rows; callers ask one extra to see whether more follow). */
  page(resource: Resource, orgId: string, request: PageRequest): Promise<Entity[]>
  count(resource: Resource, orgId: string, where: Condition[], search?: string): Promise<number>
  /** Counts and sums per group, in one statement (a total past the last page needs a second). */
  aggregate(resource: Resource, orgId: string, request: AggregateRequest): Promise<AggregateAnswer>
  /**
   * A record by id, of any organization (the caller compares `orgId`). With `columns`, only those
   * fields (and `id` and the timestamps) are read.
   */
  find(resource: Resource, id: string, columns?: readonly string[]): Promise<StoredRecord | null>
  /**
   * `find` for a record the transaction is about to change: no other transaction changes it until
   * this one ends (PostgreSQL: FOR UPDATE; SQLite's one writer gives it already).
   */
  findForUpdate(resource: Resource, id: string): Promise<StoredRecord | null>
  /** The organization's records among `ids`, in one statement per 500; missing ids are left out. */
  byIds(resource: Resource, orgId: string, ids: string[], columns?: readonly string[]): Promise<Entity[]>
  /** The first `limit` children of each parent, in one statement. */
  childPages(
    child: Resource,
    orgId: string,
    parentIds: string[],
    request: ChildPagesRequest,
  ): Promise<Entity[]>
  countChildren(
    child: Resource,
    orgId: string,
    parentIds: string[],
    where: Condition[],
    search?: string,
  ): Promise<Map<string, number>>
  existsInOrg(resource: Resource, orgId: string, id: string): Promise<boolean>
  /** True when another record of the organization already holds `value` in a unique field. */
  uniqueTaken(
    resource: Resource,
    orgId: string,
    field: string,
    value: unknown,
    exceptId?: string,
  ): Promise<boolean>
  /** Inserts a record; returns it as a read would (without reading it back). */
  insert(resource: Resource, record: NewRecord): Promise<Entity>
  /** Inserts records in input order, in few statements; returns them as a read would. */
  insertMany(resource: Resource, records: readonly NewRecord[]): Promise<Entity[]>
  /** Which of `values` records of the organization already hold in the unique field `field`. */
  takenValues(
    resource: Resource,
    orgId: string,
    field: string,
    values: readonly unknown[],
  ): Promise<Set<unknown>>
  /** Sets `values` and the update time of the record `before`; returns it as a read would answer afterwards. */
  update(resource: Resource, before: Entity, values: Record<string, unknown>, now: string): Promise<Entity>
  /**
   * Sets a state field of the record `before` to `change.to` if, in the same statement, it still
   * holds one of `change.from`; the changed record, or null when it held another state.
   */
  transition(resource: Resource, before: Entity, change: StateChange, now: string): Promise<Entity | null>
  remove(resource: Resource, id: string): Promise<void>
  /** Children of a record (`line-items` of an order), oldest first. */
  children(child: Resource, parentId: string): Promise<StoredRecord[]>
  /**
   * Records that point at this one through a reference field (not as parent), other than itself and
   * those in `except` (the records deleted with it).
   */
  referencesTo(
    target: Resource,
    id: string,
    except?: ReadonlySet<string>,
  ): Promise<{ collection: string; field: string }[]>
  /** When the organization last changed a resource's records (from the event log); null if never. */
  lastChange(orgId: string, resourceName: string): Promise<string | null>
  /** The values of `entity` for sort keys as cursors carry them and `after` takes them. */
  sortValues(resource: Resource, entity: Entity, keys: readonly SortKey[]): SortValue[]
}

/** The event log, in commit order. Positions never leave the server: clients resume with an event id. */
export interface EventStore {
  /** Appends an event; call inside the transaction of the change it records. */
  append(event: NewEvent): Promise<void>
  /** Appends events in order, in few statements; call inside the transaction of their changes. */
  appendMany(events: readonly NewEvent[]): Promise<void>
  /** Where an event sits in the log, and whose it is; null when no event has this id. */
  position(id: string): Promise<{ seq: number; orgId: string } | null>
  /** The position of the newest event of any organization (0 for an empty log). */
  last(): Promise<number>
  /** The organization's events with `after < seq <= until`, oldest first, at most `limit`. */
  after(
    orgId: string,
    range: { after: number; until: number },
    filter: EventFilter,
    limit: number,
  ): Promise<{ seq: number; entity: Entity }[]>
}

/**
 * The webhook worker's state (docs/webhooks.md): endpoints' positions in the event log, their sealed
 * signing secrets, and leases on pending deliveries, so that each attempt is made by one instance
 * at a time and one that dies mid-attempt leaves it to another once the lease ends.
 */
export interface WebhookStore {
  /** Moves the endpoint's position in the log forward to `position` (at its create: the end of the log). */
  followFrom(endpointId: string, position: number): Promise<void>
  addSecret(endpointId: string, sealed: string, now: string): Promise<void>
  /** The secrets that do not expire yet expire at `until` (a rotation); expired ones are dropped. */
  expireSecrets(endpointId: string, until: string, now: string): Promise<void>
  /** Sealed secrets that still sign at `now`, newest first. */
  liveSecrets(endpointId: string, now: string): Promise<string[]>
  /** Enabled endpoints behind `last`, furthest behind first. */
  behind(last: number, limit: number): Promise<EndpointCursor[]>
  /** The endpoint's position, locked until the transaction ends; null when gone or disabled. */
  lockCursor(endpointId: string): Promise<EndpointCursor | null>
  addDeliveries(deliveries: NewDelivery[], now: string): Promise<void>
  /** Leases due deliveries for one attempt each (FOR UPDATE SKIP LOCKED on PostgreSQL). */
  claim(request: {
    now: string
    leaseUntil: string
    owner: string
    limit: number
    skip: readonly string[]
  }): Promise<ClaimedDelivery[]>
  /** Records an attempt (counting it) if `owner` still holds its lease; false otherwise. */
  finish(id: string, owner: string, outcome: DeliveryOutcome, now: string): Promise<boolean>
  /** Gives a lease back without an attempt. */
  release(id: string, owner: string): Promise<void>
  /** A failed delivery back to pending; false when it is not failed. */
  retry(id: string, now: string): Promise<boolean>
  succeeded(endpointId: string): Promise<void>
  /** Notes a failure; disables the endpoint failing since `disableBefore` (true when this call did). */
  failed(endpointId: string, now: string, disableBefore: string): Promise<boolean>
  /** How far behind the endpoints are and how many deliveries wait or failed (each counted up to `cap`). */
  backlog(cap: number): Promise<WebhookBacklog>
}

export interface IdempotencyStore {
  /** Holds the key until the transaction ends: a second request with it waits, then replays. */
  lock(id: KeyId): Promise<void>
  find(id: KeyId, now: number): Promise<StoredAnswer | null>
  save(id: KeyId, answer: StoredAnswer, now: number): Promise<void>
}

export interface ClientStore {
  /** Registers a client; the secret (null for a public client) is returned once and kept hashed. */
  create(input: NewClient): Promise<{ client: OAuthClient; secret: string | null }>
  find(id: string): Promise<OAuthClient | null>
  /** The client when `secret` is its secret; null otherwise (also for public clients). */
  authenticate(id: string, secret: string): Promise<OAuthClient | null>
  /** `find` and `authenticate` know live clients only; the admin commands see revoked ones too. */
  list(orgId: string): Promise<ListedClient[]>
  describe(id: string): Promise<ListedClient | null>
  /** True when it is revoked or no longer exists (deleted): its tokens end with it. */
  isRevoked(id: string): Promise<boolean>
  /** Replaces the scopes it may ask for; false when there is no such client. */
  setScope(id: string, scope: string[]): Promise<boolean>
  /** Revokes it and every grant it holds, in one transaction; false when it was not live. */
  revoke(id: string, now?: string): Promise<boolean>
  /** A new secret for a live confidential client, the old one refused from now on; null otherwise. */
  renewSecret(id: string, now: string): Promise<string | null>
  /** Registers the console's public client with the redirect URI under `baseUrl` (server/console/). */
  ensureConsole(baseUrl: string): Promise<void>
}

export interface AuthorizationCodeStore {
  insert(code: string, input: Omit<AuthorizationCode, 'usedAt' | 'grantId'>, now: number): Promise<void>
  find(code: string): Promise<AuthorizationCode | null>
  /** Marks the code used; false when another request redeemed it first (RFC 6749 §4.1.2). */
  markUsed(code: string, now: number): Promise<boolean>
  setGrant(code: string, grantId: string, now: number): Promise<void>
}

export interface DeviceCodeStore {
  /** Stores a new device authorization; false when the user code is taken (the caller draws another). */
  insert(
    deviceCode: string,
    input: {
      userCode: string
      clientId: string
      requestedScope: string | null
      interval: number
      expiresAt: number
    },
    now: number,
  ): Promise<boolean>
  find(deviceCode: string): Promise<DeviceCode | null>
  findByHash(hash: string): Promise<DeviceCode | null>
  findByUserCode(userCode: string): Promise<DeviceCode | null>
  /** Records a poll; `interval` is the (possibly raised) interval to keep for later polls. */
  recordPoll(hash: string, interval: number, now: number): Promise<void>
  /** The user's decision; only a pending code can be decided, once. Returns false otherwise. */
  decide(
    hash: string,
    decision:
      | { status: 'approved'; orgId: string; userId: string; scope: string[] }
      | { status: 'denied'; orgId: string; userId: string },
    now: number,
  ): Promise<boolean>
  /** Moves an approved code to redeemed; false when another poll did it first. */
  redeem(hash: string, now: number): Promise<boolean>
}

export interface GrantStore {
  create(
    input: { orgId: string; clientId: string; userId: string; scope: string[]; expiresAt: number },
    now: number,
  ): Promise<Grant>
  find(id: string): Promise<Grant | null>
  isLive(id: string): Promise<boolean>
  revoke(id: string, now: number): Promise<void>
  insertRefreshToken(
    token: string,
    grant: { id: string; orgId: string },
    expiresAt: number,
    now: number,
  ): Promise<void>
  findRefreshToken(token: string): Promise<RefreshTokenRecord | null>
  /** Marks a refresh token used; false when it already was (reuse: the family is revoked). */
  markRefreshTokenUsed(token: string, now: number): Promise<boolean>
}

export interface RevocationStore {
  revoke(jti: string, orgId: string, expiresAt: number, now: number): Promise<void>
  isRevoked(jti: string): Promise<boolean>
}

/** Users as the login pages and role checks see them. */
export interface LoginUserStore {
  byEmail(email: string, orgId: string | null): Promise<LoginUser[]>
  byId(id: string): Promise<LoginUser | null>
  roleOf(id: string): Promise<string | null>
  setPasswordHash(userId: string, hash: string): Promise<void>
  exists(orgId: string, email: string): Promise<boolean>
  /** The organization's users, oldest first (`api-server user list`). */
  list(orgId: string): Promise<ListedUser[]>
}

export interface StoredQueryStore {
  save(
    query: Omit<StoredQuery, 'createdAt' | 'updatedAt'> & { requestHash: string },
    now: number,
  ): Promise<StoredQuery>
  find(id: string, now: number): Promise<StoredQuery | null>
  touch(id: string, now: number): Promise<void>
  delete(id: string): Promise<void>
  saveResult(tokenHash: string, result: StoredResult, now: number): Promise<void>
  findResult(tokenHash: string, now: number): Promise<StoredResult | null>
}

export interface OrgStore {
  create(name: string): Promise<Org>
  /**
   * Creates an organization whose name, in any case, is not taken yet (OrgNameTakenError
   * otherwise); `create` refuses a taken name too, `createUnique` also a name that is an id.
   */
  createUnique(name: string): Promise<Org>
  /** By id or exact name, else by name in any case. */
  find(idOrName: string): Promise<Org | null>
  /** Every organization, oldest first (`api-server org list`). */
  list(): Promise<ListedOrg[]>
  /** Whether any organization exists (serve's start-up hint names the first steps otherwise). */
  any(): Promise<boolean>
}

/**
 * What signing in keeps besides passwords (docs/oauth.md, "Signing in"): outside identities
 * linked to users, second factors, single-use WebAuthn challenges, and the organizations'
 * second-factor policies. Secrets are kept sealed (TOTP) or hashed (recovery codes).
 */
export interface SignInStore {
  findIdentity(provider: string, subject: string): Promise<LinkedIdentity | null>
  /** False when this provider's subject is linked already (to anyone). */
  linkIdentity(identity: Omit<LinkedIdentity, 'createdAt'>, now: number): Promise<boolean>
  identitiesOf(userId: string): Promise<LinkedIdentity[]>
  unlinkIdentity(userId: string, provider: string, subject: string): Promise<boolean>
  totpOf(userId: string): Promise<TotpRow | null>
  /** A new unconfirmed secret (replacing an unconfirmed one); false when a confirmed one exists. */
  startTotp(userId: string, sealedSecret: string, now: number): Promise<boolean>
  /**
   * Accepts a code's time step once: false when this step or a later one was accepted before.
   * `confirm` also confirms a pending enrolment; otherwise only a confirmed secret counts.
   */
  acceptTotpStep(userId: string, step: number, now: number, confirm: boolean): Promise<boolean>
  removeTotp(userId: string): Promise<boolean>
  replaceRecoveryCodes(userId: string, hashes: readonly string[], now: number): Promise<void>
  /** True once per unused code of the user's (by its hash). */
  useRecoveryCode(userId: string, hash: string, now: number): Promise<boolean>
  addPasskey(passkey: Omit<PasskeyRow, 'createdAt' | 'lastUsedAt'>, now: number): Promise<void>
  findPasskey(id: string): Promise<PasskeyRow | null>
  passkeysOf(userId: string): Promise<PasskeyRow[]>
  /** Records a use; false when the signature counter did not grow (unless both are 0). */
  usePasskey(id: string, signCount: number, now: number): Promise<boolean>
  removePasskey(userId: string, id: string): Promise<boolean>
  factorsOf(userId: string): Promise<UserFactors>
  /** Removes every second factor of the user (`api-server user reset-2fa`). */
  resetFactors(userId: string): Promise<void>
  /** Records an answered WebAuthn challenge (its hash) until it expires; false when it was answered already. */
  spendChallenge(
    hash: string,
    challenge: { userId: string | null; purpose: string; expiresAt: number },
  ): Promise<boolean>
  policyOf(orgId: string): Promise<SecondFactorPolicy>
  /** False when there is no such organization. */
  setPolicy(orgId: string, policy: SecondFactorPolicy): Promise<boolean>
}

export interface SettingStore {
  /** A random secret made once per database (cursor and session keys), the same for every instance. */
  instanceSecret(name: string): Promise<Uint8Array>
  insertKey(kid: string, privateJwk: string, publicJwk: string, now?: number): Promise<void>
  /** The first signing key, unless one exists already (another instance made it): false then. */
  insertFirstKey(kid: string, privateJwk: string, publicJwk: string, now?: number): Promise<boolean>
  /** The signing key (newest, not retired) and every key retired less than `keepMs` ago, newest first. */
  liveKeys(keepMs: number, now?: number): Promise<KeyRow[]>
}

/**
 * Every kind of row that expires, in the order housekeeping purges them. Each lookup compares the
 * expiry itself, so a row not purged yet is already refused: purging only frees space.
 */
export const EXPIRING_KINDS = [
  'idempotencyKeys',
  'authorizationCodes',
  'deviceCodes',
  // Before refresh tokens: idle families are found through their expired tokens.
  'grants',
  'refreshTokens',
  'revokedTokens',
  'queryResults',
  'storedQueries',
  'webauthnChallenges',
] as const
export type ExpiringKind = (typeof EXPIRING_KINDS)[number]

/**
 * A counter of changes for caches of database facts (revocations, roles, last changes):
 * `own` moves when this connection writes, `others` when another connection or instance commits.
 */
export interface ChangeSource {
  own(): number
  others(): number
  /**
   * A value that differs, on the very next call, once any change of the organization's records
   * committed (through this process or any other): what the response cache compares
   * (server/http/response-cache.ts). Read it before the data it vouches for. Synchronous on SQLite
   * (counters in memory and `PRAGMA data_version`); one indexed read on PostgreSQL.
   */
  stamp(orgId: string): number | Promise<number>
}

/** What a transaction sees; nested transactions join the outer one. */
export interface Tx {
  /** The resources this store holds (admin commands build their engine on it). */
  readonly schema: Schema
  readonly records: RecordStore
  readonly events: EventStore
  readonly idempotency: IdempotencyStore
  readonly clients: ClientStore
  readonly codes: AuthorizationCodeStore
  readonly deviceCodes: DeviceCodeStore
  readonly grants: GrantStore
  readonly revocations: RevocationStore
  readonly users: LoginUserStore
  readonly queries: StoredQueryStore
  readonly orgs: OrgStore
  readonly settings: SettingStore
  readonly webhooks: WebhookStore
  readonly signIn: SignInStore
  /** Runs `fn` as one write transaction: all of it commits, or none of it when it throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>
}

export interface Store extends Tx {
  /** `sqlite` for the embedded database. */
  readonly backend: string
  readonly durability: Durability
  readonly changes: ChangeSource
  /** Statement latency and connections in use, for the metrics (server/metrics/). */
  readonly timing: StatementTiming
  /** Applies pending migrations and the steps every run repeats; returns the schema version. */
  migrate(): Promise<number>
  /** Deletes at most `limit` expired rows of one kind in one short transaction; returns how many. */
  purgeExpired(kind: ExpiringKind, now: number, limit: number): Promise<number>
  /** Throws when the database cannot answer (readiness). */
  ping(): Promise<void>
  /** Writes a consistent copy of the live database to `file`. */
  backup(file: string): Promise<void>
  /** At shutdown: leaves the database complete in its own files (SQLite folds its write-ahead log in). */
  checkpoint(): Promise<void>
  close(): Promise<void>
}
