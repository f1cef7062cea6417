/** Bun.sql's own codes (`PostgresError.code`) for a connection it could not make or has lost. */
const DRIVER_CODES = new Set([
  'ERR_POSTGRES_CONNECTION_CLOSED',
  'ERR_POSTGRES_CONNECTION_FAILED',
  'ERR_POSTGRES_CONNECTION_REFUSED',
  'ERR_POSTGRES_CONNECTION_TIMEOUT',
])

/** The socket's own errors, should one come through as it is. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
])

/**
 * SQLSTATEs of a server that is going or not there yet (PostgreSQL, Appendix A): 53300
 * too_many_connections, 57P01 admin_shutdown (`pg_ctl -m fast`, `pg_terminate_backend`), 57P02
 * crash_shutdown, 57P03 cannot_connect_now (starting up, shutting down, in recovery). Class 08,
 * connection exception, is matched by its prefix.
 */
const SERVER_STATES = new Set(['53300', '57P01', '57P02', '57P03'])

/**
 * True when a statement failed because PostgreSQL cannot be reached: the connection could not be
 * made, was lost, or the server is going down or not up yet. Everything a statement itself causes
 * (a constraint violation, a syntax error, a serialization failure, a cancelled query) is not.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, errno } = error as { code?: unknown; errno?: unknown }
  if (typeof code === 'string' && (DRIVER_CODES.has(code) || SOCKET_CODES.has(code))) return true
  return typeof errno === 'string' && (errno.startsWith('08') || SERVER_STATES.has(errno))
}
