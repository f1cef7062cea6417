import type { OAuthContext } from '../oauth/context.ts'
import { appendUserEvent } from '../oauth/sign-in.ts'
import type { LoginUser } from '../store/types.ts'
import type { ActiveProvider } from './context.ts'
import type { OutsideIdentity } from './upstream.ts'

/** Links the identity to `user` (unless it is linked already) and appends `user.identity_linked`. */
export async function linkIdentity(
  ctx: OAuthContext,
  active: ActiveProvider,
  identity: OutsideIdentity,
  user: LoginUser,
): Promise<boolean> {
  const linked = await ctx.store.signIn.linkIdentity(
    { provider: active.provider.key, subject: identity.subject, userId: user.id, email: identity.email },
    ctx.clock(),
  )
  if (linked) await appendUserEvent(ctx, user, 'identity_linked', { provider: active.provider.key })
  return linked
}
