import { randomBytes } from 'node:crypto'
import { hmacSha256 } from './crypto.ts'

/**
 * Standard Webhooks v1 signatures (https://www.standardwebhooks.com), for the server's deliveries
 * and `api webhooks listen` alike: a secret is `whsec_` and the base64 of 32 random bytes; a
 * signature is `v1,` and the base64 HMAC-SHA256, under the secret's bytes, of
 * `{webhook-id}.{webhook-timestamp}.{body}`.
 */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  return `v1,${Buffer.from(hmacSha256(key, `${id}.${timestamp}.${body}`)).toString('base64')}`
}

/** The headers of one delivery: `webhook-signature` holds one signature per live secret, space-separated. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'api-server-webhooks/1',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, id, timestamp, body)).join(' '),
  }
}

/**
 * The body of a delivery: `{id, type, createdAt, actor, requestId, data}` of an event; `actor` and
 * `requestId` are null for an event recorded before the log kept them.
 */
export const webhookBody = (event: Record<string, unknown>) =>
  JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    actor: event.actor ?? null,
    requestId: event.requestId ?? null,
    data: event.data,
  })
