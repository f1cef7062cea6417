import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose'
import type { Tx } from '../store/store.ts'

/** Access tokens live this long; a retired key stays published at least as long. */
export const ACCESS_TOKEN_TTL_S = 3600

interface LoadedKey {
  kid: string
  publicJwk: JWK
  verifyKey: CryptoKey
}

/** A fresh ES256 key pair as stored: its kid (the JWK thumbprint) and both halves as JWK text. */
async function newKey(): Promise<{ kid: string; privateJwk: string; publicJwk: string }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true })
  const publicJwk = await exportJWK(publicKey)
  const kid = await calculateJwkThumbprint(publicJwk)
  const privateJwk = await exportJWK(privateKey)
  return {
    kid,
    privateJwk: JSON.stringify({ ...privateJwk, kid }),
    publicJwk: JSON.stringify({ ...publicJwk, kid, alg: 'ES256', use: 'sig' }),
  }
}

/** Adds a fresh ES256 key and makes it the signing key; older keys stay published until their tokens expire. */
export async function rotateKey(store: Tx): Promise<string> {
  const key = await newKey()
  await store.settings.insertKey(key.kid, key.privateJwk, key.publicJwk)
  return key.kid
}

/**
 * The signing keys, read from the database and cached. Another process (`api-server keys rotate`)
 * may add a key: an unknown `kid` triggers a reload, at most once a second.
 */
export class KeyRing {
  private signing: { kid: string; key: CryptoKey } | null = null
  private verify = new Map<string, LoadedKey>()
  private loadedAt = 0

  constructor(
    private readonly store: Tx,
    private readonly clock: () => number = Date.now,
  ) {}

  async load(): Promise<void> {
    let rows = await this.store.settings.liveKeys(ACCESS_TOKEN_TTL_S * 1000, this.clock())
    if (rows.length === 0 || rows[0]!.retired_at !== null) {
      // A first key, unless a replica starting at the same moment made it first: one key for all.
      const key = await newKey()
      await this.store.settings.insertFirstKey(key.kid, key.privateJwk, key.publicJwk)
      rows = await this.store.settings.liveKeys(ACCESS_TOKEN_TTL_S * 1000, this.clock())
    }
    const verify = new Map<string, LoadedKey>()
    for (const row of rows) {
      const publicJwk = JSON.parse(row.public_jwk) as JWK
      verify.set(row.kid, {
        kid: row.kid,
        publicJwk,
        verifyKey: (await importJWK(publicJwk, 'ES256')) as CryptoKey,
      })
    }
    const current = rows[0]!
    this.signing = {
      kid: current.kid,
      key: (await importJWK(JSON.parse(current.private_jwk), 'ES256')) as CryptoKey,
    }
    this.verify = verify
    this.loadedAt = this.clock()
  }

  async signingKey(): Promise<{ kid: string; key: CryptoKey }> {
    if (!this.signing || this.clock() - this.loadedAt > 60_000) await this.load()
    return this.signing!
  }

  async verifyKey(kid: string | undefined): Promise<CryptoKey | null> {
    if (kid === undefined) return null
    const known = this.verify.get(kid)
    if (known) return known.verifyKey
    if (this.clock() - this.loadedAt < 1000) return null
    await this.load()
    return this.verify.get(kid)?.verifyKey ?? null
  }

  /** RFC 7517 key set of every published key. */
  async jwks(): Promise<{ keys: JWK[] }> {
    if (this.clock() - this.loadedAt > 60_000) await this.load()
    return { keys: [...this.verify.values()].map((k) => k.publicJwk) }
  }
}
