import { StampedCache } from '../change-stamp.ts'
import type { ChangeSource, ExpiringKind, Store, Tx } from '../store.ts'
import type { Durability } from '../types.ts'
import { backupDatabase } from './backup.ts'
import { countChildren, selectByIds, selectChildPages } from './batch.ts'
import { authenticateClient, createClient, findClient } from './clients.ts'
import { type Database, durabilityOf, migrateDatabase, openDatabase } from './db.ts'
import { eventPosition, eventsAfter, insertEvent, lastEventPosition } from './event-log.ts'
import { findAnswer, purgeExpiredIdempotencyKeys, saveAnswer } from './idempotency.ts'
import { insertKey, liveKeys } from './keys.ts'
import { roleOfUser, userById, usersByEmail } from './login-users.ts'
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
import { anyOrg, createOrg, createUniqueOrg, findOrg } from './orgs.ts'
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
  uniqueTaken,
  updateFields,
} from './records.ts'
import { instanceSecret } from './settings.ts'
import { type SyncTx, sqliteTransactions, viewOf } from './transactions.ts'

const PURGES: Record<ExpiringKind, (db: Database, now: number, limit: number) => number> = {
  idempotencyKeys: purgeExpiredIdempotencyKeys,
  authorizationCodes: purgeExpiredCodes,
  deviceCodes: purgeExpiredDeviceCodes,
  grants: purgeExpiredGrants,
  refreshTokens: purgeExpiredRefreshTokens,
  revokedTokens: purgeExpiredRevocations,
  queryResults: purgeExpiredResults,
  storedQueries: purgeExpiredQueries,
}

/**
 * Changes seen by SQLite itself: `total_changes()` counts this connection's writes (nearly free),
 * `PRAGMA data_version` moves when another connection (another instance, an admin command) commits.
 */
function changesOf(db: Database): ChangeSource {
  const own = db.query('SELECT total_changes() AS n')
  const others = db.query('PRAGMA data_version')
  return {
    own: () => (own.get() as { n: number }).n,
    others: () => (others.get() as { data_version: number }).data_version,
  }
}

/** The store over one bun:sqlite connection. SQLite has one writer; a transaction is `BEGIN IMMEDIATE`. */
export function sqliteStore(db: Database): Store {
  const changes = changesOf(db)
  const lastChanges = new StampedCache<string | null>(changes)
  const sync: SyncTx = {
    records: {
      page: (resource, orgId, request) => selectPage(db, resource, orgId, request),
      count: (resource, orgId, where, search) => countRows(db, resource, orgId, where, search),
      find: (resource, id) => findRecord(db, resource, id),
      byIds: (resource, orgId, ids) => selectByIds(db, resource, orgId, ids),
      childPages: (child, orgId, parentIds, request) =>
        selectChildPages(db, child, orgId, parentIds, request),
      countChildren: (child, orgId, parentIds, where, search) =>
        countChildren(db, child, orgId, parentIds, where, search),
      existsInOrg: (resource, orgId, id) => existsInOrg(db, resource, orgId, id),
      uniqueTaken: (resource, orgId, field, value, exceptId) =>
        uniqueTaken(db, resource, orgId, field, value, exceptId),
      insert: (resource, record) => insertRecord(db, resource, record),
      update: (resource, before, values, now) => updateFields(db, resource, before, values, now),
      remove: (resource, id) => removeRecord(db, resource, id),
      children: (child, parentId) => childRecords(db, child, parentId),
      referencesTo: (target, id) => referencesTo(db, target, id),
      lastChange: (orgId, name) => lastChanges.get(`${orgId} ${name}`, () => lastChange(db, orgId, name)),
      sortValues: sortValuesOf,
    },
    events: {
      append: (event) => insertEvent(db, event),
      position: (id) => eventPosition(db, id),
      last: () => lastEventPosition(db),
      after: (orgId, range, filter, limit) => eventsAfter(db, orgId, range, filter, limit),
    },
    idempotency: {
      find: (id, now) => findAnswer(db, id, now),
      save: (id, answer, now) => saveAnswer(db, id, answer, now),
    },
    clients: {
      create: (input) => createClient(db, input),
      find: (id) => findClient(db, id),
      authenticate: (id, secret) => authenticateClient(db, id, secret),
    },
    codes: {
      insert: (code, input, now) => insertAuthorizationCode(db, code, input, now),
      find: (code) => findAuthorizationCode(db, code),
      markUsed: (code, now) => markAuthorizationCodeUsed(db, code, now),
      setGrant: (code, grantId, now) => setAuthorizationCodeGrant(db, code, grantId, now),
    },
    deviceCodes: {
      insert: (deviceCode, input, now) => insertDeviceCode(db, deviceCode, input, now),
      find: (deviceCode) => findDeviceCode(db, deviceCode),
      findByHash: (hash) => findDeviceCodeByHash(db, hash),
      findByUserCode: (userCode) => findDeviceCodeByUserCode(db, userCode),
      recordPoll: (hash, interval, now) => recordPoll(db, hash, interval, now),
      decide: (hash, decision, now) => decideDeviceCode(db, hash, decision, now),
      redeem: (hash, now) => redeemDeviceCode(db, hash, now),
    },
    grants: {
      create: (input, now) => createGrant(db, input, now),
      find: (id) => findGrant(db, id),
      isLive: (id) => grantIsLive(db, id),
      revoke: (id, now) => revokeGrant(db, id, now),
      insertRefreshToken: (token, grant, expiresAt, now) =>
        insertRefreshToken(db, token, grant, expiresAt, now),
      findRefreshToken: (token) => findRefreshToken(db, token),
      markRefreshTokenUsed: (token, now) => markRefreshTokenUsed(db, token, now),
    },
    revocations: {
      revoke: (jti, orgId, expiresAt, now) => revokeTokenId(db, jti, orgId, expiresAt, now),
      isRevoked: (jti) => tokenIdRevoked(db, jti),
    },
    users: {
      byEmail: (email, orgId) => usersByEmail(db, email, orgId),
      byId: (id) => userById(db, id),
      roleOf: (id) => roleOfUser(db, id),
      setPasswordHash: (userId, hash) => setPasswordHash(db, userId, hash),
      exists: (orgId, email) => hasUser(db, orgId, email),
    },
    queries: {
      save: (query, now) => saveQuery(db, query, now),
      find: (id, now) => findQuery(db, id, now),
      touch: (id, now) => touchQuery(db, id, now),
      delete: (id) => deleteQuery(db, id),
      saveResult: (tokenHash, result, now) => saveResult(db, tokenHash, result, now),
      findResult: (tokenHash, now) => findResult(db, tokenHash, now),
    },
    orgs: {
      create: (name) => createOrg(db, name),
      createUnique: (name) => createUniqueOrg(db, name),
      find: (idOrName) => findOrg(db, idOrName),
      any: () => anyOrg(db),
    },
    settings: {
      instanceSecret: (name) => instanceSecret(db, name),
      insertKey: (kid, privateJwk, publicJwk, now) => insertKey(db, kid, privateJwk, publicJwk, now),
      liveKeys: (keepMs, now) => liveKeys(db, keepMs, now),
    },
  }
  const { guard, transactions } = sqliteTransactions(db)
  const root: Tx = { ...viewOf(sync, guard), transaction: transactions.begin }
  const inTransaction: Tx = { ...viewOf(sync, transactions.inside), transaction: transactions.savepoint }
  transactions.bind(inTransaction)
  const ping = db.query('SELECT 1')
  const run = <T>(fn: () => T): Promise<T> => guard(fn)
  return {
    ...root,
    backend: 'sqlite',
    get durability(): Durability {
      return durabilityOf(db)
    },
    changes,
    migrate: () => run(() => migrateDatabase(db)),
    purgeExpired: (kind, now, limit) => run(() => PURGES[kind](db, now, limit)),
    ping: () =>
      run(() => {
        ping.get()
      }),
    backup: (file) => run(() => backupDatabase(db, file)),
    // The write-ahead log folded into the database file, so that the file alone is the database.
    checkpoint: () =>
      run(() => {
        db.run('PRAGMA wal_checkpoint(TRUNCATE)')
      }),
    close: () => run(() => db.close()),
  }
}

/** Opens (creating if missing) the SQLite database at `path` and its store. */
export function openSqliteStore(path: string, durability: Durability = 'full'): Store {
  return sqliteStore(openDatabase(path, durability))
}
