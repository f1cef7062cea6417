/**
 * Which user an outside identity signs in (docs/oauth.md, "Outside identity providers"): the one
 * it was linked to, else the one with the same verified e-mail (then linked), else a user created
 * where the provider's `createUsers` allows it; an unverified address never links or creates.
 */
import { users } from '../../shared/resources/users.ts'
import { adminEngine } from '../admin/users.ts'
import type { Principal } from '../auth/tokens.ts'
import type { OAuthContext } from '../oauth/context.ts'
import { messagePage } from '../oauth/interaction.ts'
import { seeOther } from '../oauth/pages/layout.ts'
import { loggedInUser } from '../oauth/session.ts'
import { completeSignIn, type SignInTarget } from '../oauth/sign-in.ts'
import { prepareCreate } from '../resources/writes.ts'
import type { LoginUser } from '../store/types.ts'
import { choosePage } from './choose.ts'
import type { ActiveProvider } from './context.ts'
import { linkIdentity } from './link.ts'
import type { OutsideIdentity } from './upstream.ts'

const fits = (user: LoginUser, target: SignInTarget) => target.orgId === null || user.orgId === target.orgId

/** The principal a user created on first sign-in is created by: its events' actor is `idp:{key}`. */
function providerPrincipal(ctx: OAuthContext, key: string, orgId: string): Principal {
  return {
    kind: 'system',
    subject: `idp:${key}`,
    orgId,
    clientId: `idp:${key}`,
    scopes: new Set(ctx.schema.scopes),
    expiresAt: Number.MAX_SAFE_INTEGER,
  }
}

/** `createUsers`: a user without a password in the entry's organization and role, linked at once. */
async function createUser(
  ctx: OAuthContext,
  active: ActiveProvider,
  identity: OutsideIdentity & { email: string },
  orgId: string,
  role: string,
): Promise<LoginUser | null> {
  const name = (identity.name ?? identity.email.split('@')[0] ?? identity.email).slice(0, 200)
  const principal = providerPrincipal(ctx, active.provider.key, orgId)
  const write = prepareCreate(adminEngine(ctx.store), principal, users, { name, email: identity.email, role })
  await write.check()
  const id = await ctx.store.transaction(async (tx) => {
    const user = await write.apply(adminEngine(tx))
    await tx.signIn.linkIdentity(
      {
        provider: active.provider.key,
        subject: identity.subject,
        userId: user.id as string,
        email: identity.email,
      },
      ctx.clock(),
    )
    return user.id as string
  })
  return ctx.store.users.byId(id)
}

/** The callback's end for a sign-in: the user found (or created), on to `completeSignIn`. */
export async function signInWith(
  ctx: OAuthContext,
  request: Request,
  active: ActiveProvider,
  identity: OutsideIdentity,
  target: SignInTarget,
): Promise<Response> {
  const method = `idp:${active.provider.key}` as const
  const linked = await ctx.store.signIn.findIdentity(active.provider.key, identity.subject)
  if (linked) {
    const user = await ctx.store.users.byId(linked.userId)
    if (user && fits(user, target)) return completeSignIn(ctx, request, user, method, target)
    return messagePage(
      403,
      'No account here',
      `Your ${active.name} account is linked to an account that cannot sign in to this application.`,
    )
  }
  if (identity.email === null)
    return messagePage(
      403,
      'E-mail address not verified',
      `${active.name} did not confirm that your e-mail address is verified, so it cannot sign you in here. Verify it with ${active.name}, or sign in with your password.`,
    )
  // As the password login looks addresses up: lower-cased, the way they are stored.
  const email = identity.email.trim().toLowerCase()
  const found = await ctx.store.users.byEmail(email, target.orgId)
  if (found.length === 1) {
    await linkIdentity(ctx, active, identity, found[0]!)
    return completeSignIn(ctx, request, found[0]!, method, target)
  }
  if (found.length > 1) return choosePage(ctx, request, active, { ...identity, email }, found, target)
  const create = active.createUsers
  if (create && (target.orgId === null || target.orgId === create.orgId)) {
    const user = await createUser(ctx, active, { ...identity, email }, create.orgId, create.role)
    if (user) return completeSignIn(ctx, request, user, method, target)
  }
  return messagePage(
    403,
    'No account uses that e-mail address',
    `No account here uses the e-mail address ${active.name} gave. Ask an administrator of your organization to add you, then sign in again.`,
  )
}

/** The callback's end for a link from /account: the identity joins the signed-in user. */
export async function linkToUser(
  ctx: OAuthContext,
  request: Request,
  active: ActiveProvider,
  identity: OutsideIdentity,
  userId: string,
): Promise<Response> {
  const user = await loggedInUser(ctx, request, null)
  if (!user || user.id !== userId)
    return messagePage(400, 'Sign-in expired', 'Sign in to your account again, then link the provider.')
  const linked = await ctx.store.signIn.findIdentity(active.provider.key, identity.subject)
  if (linked && linked.userId !== user.id)
    return messagePage(
      409,
      'Linked to another account',
      `That ${active.name} account is linked to another account here. Unlink it there first.`,
    )
  if (!linked) await linkIdentity(ctx, active, identity, user)
  return seeOther('/account?notice=identity-linked')
}
