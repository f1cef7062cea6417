import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'

/**
 * Secrets at rest are kept sealed (AES-256-GCM) under a key of the instance (`settings`, next to
 * the signing keys): a copy of the tables that hold them, or a log of their rows, shows no secret.
 * Webhook signing secrets, and the stored answers that revealed one, are sealed this way.
 */
export function seal(key: Uint8Array, secret: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`
}

export function unseal(key: Uint8Array, text: string): string {
  const raw = Buffer.from(text.replace(/^v1\./, ''), 'base64')
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
  decipher.setAuthTag(raw.subarray(12, 28))
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
}
