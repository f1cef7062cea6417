import { sha256Hex } from '../../shared/crypto.ts'

/**
 * How codes, refresh tokens and device codes are kept at rest: the hex SHA-256 of the value.
 * They carry 256 random bits, so a slow hash adds nothing, and looking one up by its hash is an
 * index lookup that does not depend on how much of a guess matched.
 */
export const hashToken = (value: string): string => sha256Hex(value)
