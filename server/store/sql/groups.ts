import type { Schema } from '../../../shared/schema/schema.ts'
import type { StampedCache } from '../change-stamp.ts'
import type { Executor } from '../executor.ts'
import type { ExpiringKind, Tx } from '../store.ts'
import type { Entity, EventFilter, NewEvent } from '../types.ts'
import { aggregateRows } from './aggregates.ts'
import { countChildren, selectByIds, selectChildPages } from './batch.ts'
import {
  authenticateClient,
  clientRevoked,
  createClient,
  describeClient,
  ensureConsoleClient,
  findClient,
  listClients,
  renewClientSecret,
  revokeClient,
  setClientScope,
} from './clients.ts'
import { findAnswer, lockKey, purgeExpiredIdempotencyKeys, saveAnswer } from './idempotency.ts'
import { insertRecords, takenValues } from './insert-many.ts'
import { insertFirstKey, insertKey, liveKeys } from './keys.ts'
import { listUsers, roleOfUser, userById, usersByEmail } from './login-users.ts'
import {
  findAuthorizationCode,
  insertAuthorizationCode,
  markAuthorizationCodeUsed,
  purgeExpiredCodes,
  setAuthorizationCodeGrant,
} from './oauth-codes.ts'
import {
  decideDeviceCode,
  findDeviceCode,
  findDeviceCodeByHash,
  findDeviceCodeByUserCode,
  insertDeviceCode,
  purgeExpiredDeviceCodes,
  recordPoll,
  redeemDeviceCode,
} from './oauth-device-codes.ts'
import {
  createGrant,
  findGrant,
  findRefreshToken,
  grantIsLive,
  insertRefreshToken,
  markRefreshTokenUsed,
  purgeExpiredGrants,
  purgeExpiredRefreshTokens,
  revokeGrant,
} from './oauth-grants.ts'
import { purgeExpiredRevocations, revokeTokenId, tokenIdRevoked } from './oauth-revoked-tokens.ts'
import { anyOrg, createOrg, createUniqueOrg, findOrg, listOrgs } from './orgs.ts'
import { hasUser, setPasswordHash } from './passwords.ts'
import {
  deleteQuery,
  findQuery,
  findResult,
  purgeExpiredQueries,
  purgeExpiredResults,
  saveQuery,
  saveResult,
  touchQuery,
} from './queries.ts'
import {
  childRecords,
  countRows,
  existsInOrg,
  findRecord,
  insertRecord,
  lastChange,
  referencesTo,
  removeRecord,
  selectPage,
  sortValuesOf,
  transitionRecord,
  uniqueTaken,
  updateFields,
} from './records.ts'
import { instanceSecret } from './settings.ts'
import {
  acceptTotpStep,
  addPasskey,
  factorsOf,
  findIdentity,
  findPasskey,
  identitiesOf,
  linkIdentity,
  passkeysOf,
  purgeExpiredChallenges,
  removePasskey,
  removeTotp,
  replaceRecoveryCodes,
  resetFactors,
  secondFactorPolicy,
  setSecondFactorPolicy,
  spendChallenge,
  startTotp,
  totpOf,
  unlinkIdentity,
  usePasskey,
  useRecoveryCode,
} from './sign-in.ts'
import {
  addDeliveries,
  addSecret,
  claimDeliveries,
  endpointFailed,
  endpointSucceeded,
  endpointsBehind,
  expireSecrets,
  finishDelivery,
  followFrom,
  liveSecrets,
  lockCursor,
  releaseDelivery,
  retryDelivery,
  webhookBacklog,
} from './webhooks.ts'

/** How each kind of expiring row is purged, at most `limit` rows in one statement. */
export const PURGES: Record<ExpiringKind, (x: Executor, now: number, limit: number) => Promise<number>> = {
  idempotencyKeys: purgeExpiredIdempotencyKeys,
  authorizationCodes: purgeExpiredCodes,
  deviceCodes: purgeExpiredDeviceCodes,
  grants: purgeExpiredGrants,
  refreshTokens: purgeExpiredRefreshTokens,
  revokedTokens: purgeExpiredRevocations,
  queryResults: purgeExpiredResults,
  storedQueries: purgeExpiredQueries,
  webauthnChallenges: purgeExpiredChallenges,
}

/** The event log's statements, which differ by backend: how a position is kept in commit order. */
export interface EventLog {
  append(x: Executor, event: NewEvent): Promise<void>
  appendMany(x: Executor, events: readonly NewEvent[]): Promise<void>
  position(x: Executor, id: string): Promise<{ seq: number; orgId: string } | null>
  last(x: Executor): Promise<number>
  after(
    x: Executor,
    orgId: string,
    range: { after: number; until: number },
    filter: EventFilter,
    limit: number,
  ): Promise<{ seq: number; entity: Entity }[]>
}

/** What a backend brings besides its executor. */
interface Backend {
  /** The resources the store holds: what may reference a record, the scopes a client gets by default. */
  schema: Schema
  events: EventLog
  /**
   * When each organization last changed each resource, cached until the database changes; read
   * every time without it (PostgreSQL: another replica's commit is heard only later, and a stale
   * Last-Modified would answer a later If-Modified-Since with 304).
   */
  lastChanges?: StampedCache<string | null>
}

/**
 * The store's method groups over one executor: the whole store at the top, a transaction's view
 * inside one. Every backend shares these statements; only the event log differs.
 */
export function txOver(x: Executor, backend: Backend): Tx {
  const { events, lastChanges, schema } = backend
  return {
    schema,
    records: {
      page: (resource, orgId, request) => selectPage(x, resource, orgId, request),
      count: (resource, orgId, where, search) => countRows(x, resource, orgId, where, search),
      aggregate: (resource, orgId, request) => aggregateRows(x, resource, orgId, request),
      find: (resource, id, columns) => findRecord(x, resource, id, false, columns),
      findForUpdate: (resource, id) => findRecord(x, resource, id, true),
      byIds: (resource, orgId, ids, columns) => selectByIds(x, resource, orgId, ids, columns),
      childPages: (child, orgId, parentIds, request) => selectChildPages(x, child, orgId, parentIds, request),
      countChildren: (child, orgId, parentIds, where, search) =>
        countChildren(x, child, orgId, parentIds, where, search),
      existsInOrg: (resource, orgId, id) => existsInOrg(x, resource, orgId, id),
      uniqueTaken: (resource, orgId, field, value, exceptId) =>
        uniqueTaken(x, resource, orgId, field, value, exceptId),
      insert: (resource, record) => insertRecord(x, resource, record),
      insertMany: (resource, records) => insertRecords(x, resource, records),
      takenValues: (resource, orgId, field, values) => takenValues(x, resource, orgId, field, values),
      update: (resource, before, values, now) => updateFields(x, resource, before, values, now),
      transition: (resource, before, change, now) => transitionRecord(x, resource, before, change, now),
      remove: (resource, id) => removeRecord(x, resource, id),
      children: (child, parentId) => childRecords(x, child, parentId),
      referencesTo: (target, id, except) => referencesTo(x, schema.resources, target, id, except),
      lastChange: async (orgId, name) =>
        lastChanges
          ? lastChanges.getOrRead(`${orgId} ${name}`, () => lastChange(x, orgId, name))
          : lastChange(x, orgId, name),
      sortValues: sortValuesOf,
    },
    events: {
      append: (event) => events.append(x, event),
      appendMany: (list) => events.appendMany(x, list),
      position: (id) => events.position(x, id),
      last: () => events.last(x),
      after: (orgId, range, filter, limit) => events.after(x, orgId, range, filter, limit),
    },
    idempotency: {
      lock: (id) => lockKey(x, id),
      find: (id, now) => findAnswer(x, id, now),
      save: (id, answer, now) => saveAnswer(x, id, answer, now),
    },
    clients: {
      create: (input) => createClient(x, input, schema.scopes),
      find: (id) => findClient(x, id),
      authenticate: (id, secret) => authenticateClient(x, id, secret),
      list: (orgId) => listClients(x, orgId),
      describe: (id) => describeClient(x, id),
      isRevoked: (id) => clientRevoked(x, id),
      setScope: (id, scope) => setClientScope(x, id, scope),
      revoke: (id, now) => revokeClient(x, id, now),
      renewSecret: (id, now) => renewClientSecret(x, id, now),
      ensureConsole: (baseUrl) => ensureConsoleClient(x, baseUrl, schema.scopes),
    },
    codes: {
      insert: (code, input, now) => insertAuthorizationCode(x, code, input, now),
      find: (code) => findAuthorizationCode(x, code),
      markUsed: (code, now) => markAuthorizationCodeUsed(x, code, now),
      setGrant: (code, grantId, now) => setAuthorizationCodeGrant(x, code, grantId, now),
    },
    deviceCodes: {
      insert: (deviceCode, input, now) => insertDeviceCode(x, deviceCode, input, now),
      find: (deviceCode) => findDeviceCode(x, deviceCode),
      findByHash: (hash) => findDeviceCodeByHash(x, hash),
      findByUserCode: (userCode) => findDeviceCodeByUserCode(x, userCode),
      recordPoll: (hash, interval, now) => recordPoll(x, hash, interval, now),
      decide: (hash, decision, now) => decideDeviceCode(x, hash, decision, now),
      redeem: (hash, now) => redeemDeviceCode(x, hash, now),
    },
    grants: {
      create: (input, now) => createGrant(x, input, now),
      find: (id) => findGrant(x, id),
      isLive: (id) => grantIsLive(x, id),
      revoke: (id, now) => revokeGrant(x, id, now),
      insertRefreshToken: (token, grant, expiresAt, now) =>
        insertRefreshToken(x, token, grant, expiresAt, now),
      findRefreshToken: (token) => findRefreshToken(x, token),
      markRefreshTokenUsed: (token, now) => markRefreshTokenUsed(x, token, now),
    },
    revocations: {
      revoke: (jti, orgId, expiresAt, now) => revokeTokenId(x, jti, orgId, expiresAt, now),
      isRevoked: (jti) => tokenIdRevoked(x, jti),
    },
    users: {
      byEmail: (email, orgId) => usersByEmail(x, email, orgId),
      byId: (id) => userById(x, id),
      roleOf: (id) => roleOfUser(x, id),
      setPasswordHash: (userId, hash) => setPasswordHash(x, userId, hash),
      exists: (orgId, email) => hasUser(x, orgId, email),
      list: (orgId) => listUsers(x, orgId),
    },
    queries: {
      save: (query, now) => saveQuery(x, query, now),
      find: (id, now) => findQuery(x, id, now),
      touch: (id, now) => touchQuery(x, id, now),
      delete: (id) => deleteQuery(x, id),
      saveResult: (tokenHash, result, now) => saveResult(x, tokenHash, result, now),
      findResult: (tokenHash, now) => findResult(x, tokenHash, now),
    },
    orgs: {
      create: (name) => createOrg(x, name),
      createUnique: (name) => createUniqueOrg(x, name),
      find: (idOrName) => findOrg(x, idOrName),
      any: () => anyOrg(x),
      list: () => listOrgs(x),
    },
    settings: {
      instanceSecret: (name) => instanceSecret(x, name),
      insertKey: (kid, privateJwk, publicJwk, now) => insertKey(x, kid, privateJwk, publicJwk, now),
      insertFirstKey: (kid, privateJwk, publicJwk, now) => insertFirstKey(x, kid, privateJwk, publicJwk, now),
      liveKeys: (keepMs, now) => liveKeys(x, keepMs, now),
    },
    webhooks: {
      followFrom: (endpointId, position) => followFrom(x, endpointId, position),
      addSecret: (endpointId, sealed, now) => addSecret(x, endpointId, sealed, now),
      expireSecrets: (endpointId, until, now) => expireSecrets(x, endpointId, until, now),
      liveSecrets: (endpointId, now) => liveSecrets(x, endpointId, now),
      behind: (last, limit) => endpointsBehind(x, last, limit),
      lockCursor: (endpointId) => lockCursor(x, endpointId),
      addDeliveries: (deliveries, now) => addDeliveries(x, deliveries, now),
      claim: (request) => claimDeliveries(x, request),
      finish: (id, owner, outcome, now) => finishDelivery(x, id, owner, outcome, now),
      release: (id, owner) => releaseDelivery(x, id, owner),
      retry: (id, now) => retryDelivery(x, id, now),
      succeeded: (endpointId) => endpointSucceeded(x, endpointId),
      failed: (endpointId, now, disableBefore) => endpointFailed(x, endpointId, now, disableBefore),
      backlog: (cap) => webhookBacklog(x, cap),
    },
    signIn: {
      findIdentity: (provider, subject) => findIdentity(x, provider, subject),
      linkIdentity: (identity, now) => linkIdentity(x, identity, now),
      identitiesOf: (userId) => identitiesOf(x, userId),
      unlinkIdentity: (userId, provider, subject) => unlinkIdentity(x, userId, provider, subject),
      totpOf: (userId) => totpOf(x, userId),
      startTotp: (userId, sealed, now) => startTotp(x, userId, sealed, now),
      acceptTotpStep: (userId, step, now, confirm) => acceptTotpStep(x, userId, step, now, confirm),
      removeTotp: (userId) => removeTotp(x, userId),
      replaceRecoveryCodes: (userId, hashes, now) => replaceRecoveryCodes(x, userId, hashes, now),
      useRecoveryCode: (userId, hash, now) => useRecoveryCode(x, userId, hash, now),
      addPasskey: (passkey, now) => addPasskey(x, passkey, now),
      findPasskey: (id) => findPasskey(x, id),
      passkeysOf: (userId) => passkeysOf(x, userId),
      usePasskey: (id, signCount, now) => usePasskey(x, id, signCount, now),
      removePasskey: (userId, id) => removePasskey(x, userId, id),
      factorsOf: (userId) => factorsOf(x, userId),
      resetFactors: (userId) => resetFactors(x, userId),
      spendChallenge: (hash, challenge) => spendChallenge(x, hash, challenge),
      policyOf: (orgId) => secondFactorPolicy(x, orgId),
      setPolicy: (orgId, policy) => setSecondFactorPolicy(x, orgId, policy),
    },
    transaction: (fn) => x.transaction((inner) => fn(txOver(inner, backend))),
  }
}
