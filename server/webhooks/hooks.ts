import { conflict, validationError } from '../../shared/errors.ts'
import { newId } from '../../shared/ids.ts'
import { events } from '../../shared/resources/events.ts'
import { deliveries } from '../../shared/resources/webhook-endpoints.ts'
import { isoNow } from '../../shared/time.ts'
import { newSecret } from '../../shared/webhook-signature.ts'
import { seal } from '../crypto/seal.ts'
import type { EngineContext, HookRegistry, ResourceHooks } from '../resources/context.ts'
import { actorOf } from '../resources/events.ts'
import type { Tx } from '../store/store.ts'
import { type Resolver, resolveTarget, TargetRefused } from './target.ts'

/** How long a rotated secret keeps signing alongside the new one. */
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000

/** The instance's key that seals signing secrets at rest, kept with the other instance secrets. */
export const secretKey = (store: Pick<Tx, 'settings'>) => store.settings.instanceSecret('webhook-secrets')

async function addSecret(ctx: EngineContext, endpointId: string, now: string): Promise<string> {
  const secret = newSecret()
  await ctx.store.webhooks.addSecret(endpointId, seal(await secretKey(ctx.store), secret), now)
  return secret
}

/** What the URL check of a create or change needs: `serve --allow-http-webhooks`, and DNS. */
interface UrlCheckOptions {
  allowHttp: boolean
  resolve?: Resolver
  resolveTimeoutMs?: number
}

/**
 * Checks a URL a create or change sends: 422 naming `url` when a delivery could not go there,
 * also when its host does not resolve within the limit.
 */
export async function checkUrl(url: string, options: UrlCheckOptions): Promise<void> {
  try {
    await resolveTarget(url, options.allowHttp, options.resolve, options.resolveTimeoutMs)
  } catch (error) {
    if (error instanceof TargetRefused)
      throw validationError([{ field: 'url', message: error.message }], { cause: error })
    throw error
  }
}

/**
 * What webhook endpoints and their deliveries add to the engine's generic path: the URL check,
 * the secret made at create, and the actions `rotate-secret`, `test` and `retry`.
 */
export function webhookHooks(options: UrlCheckOptions): HookRegistry {
  return new Map<string, ResourceHooks>([
    [
      'webhook-endpoints',
      {
        check: async (values) => {
          if (typeof values.url === 'string') await checkUrl(values.url, options)
        },
        // Deliveries start after the create's own event: the end of the log, this event included.
        created: async (ctx, _principal, entity, now) => {
          const id = entity.id as string
          await ctx.store.webhooks.followFrom(id, await ctx.store.events.last())
          return { secret: await addSecret(ctx, id, now) }
        },
        actions: {
          'rotate-secret': async (ctx, _principal, before, now) => {
            const id = before.id as string
            const until = isoNow(Date.parse(now) + ROTATION_OVERLAP_MS)
            await ctx.store.webhooks.expireSecrets(id, until, now)
            return { entity: before, revealed: { secret: await addSecret(ctx, id, now) } }
          },
          test: async (ctx, principal, before, now) => {
            if (before.enabled !== true)
              throw conflict('This webhook endpoint is disabled; enable it to test it.', [
                { field: 'enabled', message: 'is false; test needs true' },
              ])
            const eventId = newId(events.prefix)
            const payload = {
              id: eventId,
              type: 'webhook.test',
              createdAt: now,
              actor: actorOf(principal),
              requestId: ctx.requestId?.() ?? null,
              data: {
                endpointId: before.id,
                message: 'A test event: this endpoint receives and verifies deliveries.',
              },
            }
            await ctx.store.webhooks.addDeliveries(
              [
                {
                  id: newId(deliveries.prefix),
                  orgId: principal.orgId,
                  endpointId: before.id as string,
                  eventId,
                  eventType: payload.type,
                  payload: JSON.stringify(payload),
                },
              ],
              now,
            )
            return { entity: before }
          },
        },
      },
    ],
    [
      'deliveries',
      {
        actions: {
          retry: async (ctx, _principal, before, now) => {
            const id = before.id as string
            if (!(await ctx.store.webhooks.retry(id, now)))
              throw conflict(
                `This delivery cannot retry: its status is ${String(before.status)}, and retry needs failed.`,
                [{ field: 'status', message: `is ${String(before.status)}; retry needs failed` }],
              )
            const after = await ctx.store.records.find(deliveries, id)
            return { entity: after!.entity }
          },
        },
      },
    ],
  ])
}
