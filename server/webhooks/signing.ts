import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'

/**
 * Standard Webhooks v1 signatures (https://www.standardwebhooks.com): a secret is `whsec_` and the
 * base64 of 32 random bytes; a signature is `v1,` and the base64 HMAC-SHA256, under the secret's
 * bytes, of `{webhook-id}.{webhook-timestamp}.{body}`.
 */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
}

/** The `webhook-signature` header: one signature per live secret, separated by spaces. */
export const signatureHeader = (secrets: readonly string[], id: string, timestamp: number, body: string) =>
  secrets.map((secret) => sign(secret, id, timestamp, body)).join(' ')

/**
 * Secrets are kept sealed (AES-256-GCM) under a key of the instance (`settings`, next to the
 * signing keys): a copy of the webhook tables alone, or a log of their rows, shows no secret.
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
