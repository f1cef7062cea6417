import type { Schema } from '../../shared/schema/schema.ts'
import { roleScopes } from '../auth/roles.ts'
import { clientAddress } from '../http/client-address.ts'
import type { DeviceCode, OAuthClient } from '../store/types.ts'
import type { OAuthContext } from './context.ts'
import { readForm } from './form.ts'
import {
  accountStep,
  currentUser,
  type InteractionTarget,
  loginPage,
  messagePage,
  readSignedFlow,
} from './interaction.ts'
import { INTERACTION_TTL_S } from './lifetimes.ts'
import { forbiddenForm, pageHandler } from './page-handler.ts'
import { html } from './pages/html.ts'
import { pageResponse, seeOther } from './pages/layout.ts'
import { consentBody, userCodeBody } from './pages/pages.ts'
import { formatUserCode, normalizeUserCode } from './random.ts'
import { intersectScope, parseScope } from './scopes.ts'
import { enrolFirst } from './second-factor-policy.ts'
import { csrfOk, csrfValue } from './session.ts'

/** A pending device authorization and its client, or null when it cannot be approved (any more). */
async function pending(
  ctx: OAuthContext,
  device: DeviceCode | null,
): Promise<{ device: DeviceCode; client: OAuthClient } | null> {
  if (device?.status !== 'pending' || device.expiresAt <= ctx.clock()) return null
  const client = await ctx.store.clients.find(device.clientId)
  return client ? { device, client } : null
}

function target(ctx: OAuthContext, hash: string, client: OAuthClient): InteractionTarget {
  const flow = ctx.signer.sign('device', { h: hash }, INTERACTION_TTL_S)
  return {
    action: '/device',
    request: flow,
    continueUrl: `/device?flow=${flow}`,
    orgId: client.orgId,
    purpose: html`<strong>${client.name}</strong> on your device wants to access your account. Sign in to continue.`,
  }
}

const gone = () =>
  messagePage(
    400,
    'This code cannot be used',
    'The code has expired or was already used. Start again on your device to get a new code.',
  )

function grantable(schema: Schema, device: DeviceCode, client: OAuthClient, role: string) {
  const asked = parseScope(schema, device.requestedScope ?? undefined)
  const scopes = intersectScope(schema, asked, client.scope, roleScopes(schema, role))
  const withheld = intersectScope(schema, asked, client.scope).filter((s) => !scopes.includes(s))
  return { scopes, withheld }
}

function codePage(
  ctx: OAuthContext,
  request: Request,
  userCode?: string,
  error?: string,
  status = 200,
): Response {
  const csrf = csrfValue(ctx, request)
  return pageResponse({
    title: 'Connect a device',
    status,
    body: userCodeBody(csrf.value, userCode, error),
    cookies: csrf.cookies,
  })
}

/** GET /device: the code form (prefilled from verification_uri_complete), then login and consent. */
async function show(ctx: OAuthContext, request: Request): Promise<Response> {
  const params = new URL(request.url).searchParams
  const done = params.get('done')
  if (done === 'approved')
    return messagePage(200, 'Device connected', 'You can close this window and go back to your device.')
  if (done === 'denied')
    return messagePage(200, 'Access denied', 'The device will not get access. You can close this window.')
  const flow = params.get('flow')
  if (flow === null) {
    // RFC 8628 §3.3.1: even with the code in the link, the user confirms it matches the device.
    const typed = params.get('user_code') ?? ''
    const code = normalizeUserCode(typed)
    return codePage(ctx, request, code ? formatUserCode(code) : typed.slice(0, 16))
  }
  const signed = readSignedFlow(ctx, 'device', 'h', flow)
  const found = signed && (await pending(ctx, await ctx.store.deviceCodes.findByHash(signed.flow)))
  if (!found) return gone()
  const interaction = target(ctx, found.device.hash, found.client)
  const user = await currentUser(ctx, request, interaction)
  if (!user) return loginPage(ctx, request, interaction)
  const enrol = await enrolFirst(ctx, user, interaction.continueUrl)
  if (enrol) return enrol
  const { scopes, withheld } = grantable(ctx.schema, found.device, found.client, user.role)
  if (scopes.length === 0)
    return messagePage(
      403,
      'Nothing to allow',
      `Your role (${user.role}) allows none of the permissions this device asks for.`,
    )
  const csrf = csrfValue(ctx, request)
  const form = {
    action: '/device',
    request: ctx.signer.sign('device', { h: found.device.hash, uid: user.id }, INTERACTION_TTL_S),
    csrf: csrf.value,
  }
  return pageResponse({
    title: 'Allow access?',
    body: consentBody(form, {
      clientName: found.client.name,
      user,
      scopes,
      withheld,
      userCode: found.device.userCode,
    }),
    cookies: csrf.cookies,
  })
}

/** POST step=code: looks the user code up, counting wrong ones per address (RFC 8628 §5.1). */
async function enterCode(ctx: OAuthContext, request: Request, typed: string): Promise<Response> {
  const limit = ctx.limits.userCodePerAddress
  const address = clientAddress(request)
  const retryAfter = await limit.retryAfter(address)
  if (retryAfter > 0) {
    const response = messagePage(
      429,
      'Too many attempts',
      `Too many wrong codes. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
    )
    response.headers.set('Retry-After', String(retryAfter))
    return response
  }
  const code = normalizeUserCode(typed)
  const found = code ? await pending(ctx, await ctx.store.deviceCodes.findByUserCode(code)) : null
  if (!found) {
    await limit.fail(address)
    return codePage(
      ctx,
      request,
      typed.slice(0, 16),
      'That code is not valid or has expired. Check it and try again.',
      400,
    )
  }
  return seeOther(target(ctx, found.device.hash, found.client).continueUrl)
}

async function submit(ctx: OAuthContext, request: Request): Promise<Response> {
  const form = await readForm(request)
  if (!csrfOk(ctx, request, form)) return forbiddenForm('Open the link from your device again.')
  if (form.get('step') === 'code') return await enterCode(ctx, request, form.get('user_code') ?? '')
  const signed = readSignedFlow(ctx, 'device', 'h', form.get('request'))
  const found = signed && (await pending(ctx, await ctx.store.deviceCodes.findByHash(signed.flow)))
  if (!found) return gone()
  const interaction = target(ctx, found.device.hash, found.client)
  const handled = await accountStep(ctx, request, form, interaction)
  if (handled) return handled
  if (form.get('step') !== 'consent') return messagePage(400, 'Unknown step', 'Go back and try again.')
  const user = await currentUser(ctx, request, interaction)
  if (!user || user.id !== signed.uid) return seeOther(interaction.continueUrl)
  // No approval, nor a denial, until the user has the factor the organization requires.
  const enrol = await enrolFirst(ctx, user, interaction.continueUrl)
  if (enrol) return enrol
  const now = ctx.clock()
  const { scopes } = grantable(ctx.schema, found.device, found.client, user.role)
  const allowed = form.get('decision') === 'allow' && scopes.length > 0
  const decided = await ctx.store.deviceCodes.decide(
    found.device.hash,
    allowed
      ? { status: 'approved', orgId: user.orgId, userId: user.id, scope: scopes }
      : { status: 'denied', orgId: user.orgId, userId: user.id },
    now,
  )
  if (!decided) return gone()
  return seeOther(`/device?done=${allowed ? 'approved' : 'denied'}`)
}

/** GET and POST /device: the verification page of the device flow (RFC 8628 §3.3). */
export const devicePage = pageHandler(show, submit)
