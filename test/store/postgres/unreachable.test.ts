import { describe, expect, it } from 'bun:test'
import { isConnectionFailure } from '../../../server/store/postgres/unreachable.ts'

/**
 * Which of Bun.sql's errors mean that PostgreSQL cannot be reached (the store answers them 503
 * UNAVAILABLE, server/store/availability.ts), and which a statement caused (they stay what they
 * are). The shapes are Bun.sql's: its own `code`, and the SQLSTATE in `errno` for a server's error
 * (test/store/postgres/bun-sql-repro.test.ts). test/operations/postgres-outage.test.ts meets the
 * first kinds on a real server.
 */
const failure = (code: string, errno?: string) => Object.assign(new Error(code), { code, errno })

describe('a connection failure of PostgreSQL', () => {
  it.each([
    ['a connection lost mid-statement', failure('ERR_POSTGRES_CONNECTION_CLOSED')],
    ['a refused connection', failure('ERR_POSTGRES_CONNECTION_REFUSED')],
    ['a connection that failed', failure('ERR_POSTGRES_CONNECTION_FAILED')],
    ['a connection timeout', failure('ERR_POSTGRES_CONNECTION_TIMEOUT')],
    ['a reset socket', failure('ECONNRESET')],
    ['a host not found', failure('ENOTFOUND')],
    ['57P01 admin_shutdown', failure('ERR_POSTGRES_SERVER_ERROR', '57P01')],
    ['57P02 crash_shutdown', failure('ERR_POSTGRES_SERVER_ERROR', '57P02')],
    ['57P03 cannot_connect_now (starting up)', failure('ERR_POSTGRES_SERVER_ERROR', '57P03')],
    ['08006 connection_failure', failure('ERR_POSTGRES_SERVER_ERROR', '08006')],
    ['53300 too_many_connections', failure('ERR_POSTGRES_SERVER_ERROR', '53300')],
  ])('is %s', (_, error) => {
    expect(isConnectionFailure(error)).toBe(true)
  })

  it.each([
    ['23505 unique_violation', failure('ERR_POSTGRES_SERVER_ERROR', '23505')],
    ['40001 serialization_failure', failure('ERR_POSTGRES_SERVER_ERROR', '40001')],
    ['40P01 deadlock_detected', failure('ERR_POSTGRES_SERVER_ERROR', '40P01')],
    ['57014 query_canceled', failure('ERR_POSTGRES_SERVER_ERROR', '57014')],
    ['42601 syntax_error', failure('ERR_POSTGRES_SYNTAX_ERROR', '42601')],
    ['28P01 invalid_password', failure('ERR_POSTGRES_SERVER_ERROR', '28P01')],
    ['an error of ours', new Error('the handler failed')],
    ['a thrown string', 'Connection closed'],
    ['nothing', null],
  ])('is not %s', (_, error) => {
    expect(isConnectionFailure(error)).toBe(false)
  })
})
