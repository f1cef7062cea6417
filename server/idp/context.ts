import type { Tx } from '../store/store.ts'
import { type IdpConfig, IdpFileError, type IdpProvider } from './config.ts'
import { displayName, redirectUriOf, type Upstream, upstreamOf } from './upstream.ts'

/** A declared provider ready to sign people in: its upstream, and the organization it creates users in. */
export interface ActiveProvider {
  provider: IdpProvider
  name: string
  upstream: Upstream
  /** `createUsers`, its organization resolved to an id at start. */
  createUsers: { orgId: string; role: string } | null
}

/** The providers in force, by key, in the file's order (the login page's order). */
export type IdpProviders = Map<string, ActiveProvider>

/**
 * The file's providers over this server's base URL; every `createUsers.org` must name an existing
 * organization (by id or exact name), or the server does not start (IdpFileError, exit 2).
 */
export async function activateProviders(
  file: string,
  config: IdpConfig,
  store: Tx,
  baseUrl: string,
): Promise<IdpProviders> {
  const active: IdpProviders = new Map()
  const problems: string[] = []
  for (const provider of config.providers) {
    let createUsers: ActiveProvider['createUsers'] = null
    if (provider.createUsers) {
      const org = await store.orgs.find(provider.createUsers.org)
      if (!org)
        problems.push(
          `providers.${provider.key}.createUsers.org: no such organization (give its id or exact name; api-server org list shows them)`,
        )
      else createUsers = { orgId: org.id, role: provider.createUsers.role }
    }
    active.set(provider.key, {
      provider,
      name: displayName(provider),
      upstream: upstreamOf(provider, baseUrl),
      createUsers,
    })
  }
  if (problems.length > 0) throw new IdpFileError(file, problems)
  return active
}

/** The start lines: each provider's redirect URI, for the operator to register with it. */
export const redirectLines = (config: IdpConfig, baseUrl: string): string[] =>
  config.providers.map(
    (p) =>
      `sign-in with ${displayName(p)} (${p.type}): register the redirect URI ${redirectUriOf(baseUrl, p.key)}`,
  )
