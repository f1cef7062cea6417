import type { CAC } from 'cac'
import type { Schema } from '../../shared/schema/schema.ts'
import { redirectUriProblem } from '../oauth/redirect-uri.ts'
import type { Store } from '../store/store.ts'
import { GRANT_TYPES, type GrantType } from '../store/types.ts'
import { list, optionalText, passwordOf, requiredText, UsageError } from './arguments.ts'
import { parseScopes, revokeClient, updateClientScope } from './clients.ts'
import { unknownAction } from './command-line.ts'
import { type Listing, listClients, listOrgs, listUsers } from './listings.ts'
import { parsePolicy, resetSecondFactors, resetSentence, updateOrgPolicy } from './second-factors.ts'
import { createUser, requireOrg, setPassword } from './users.ts'

const POLICY_WORDS = {
  admins: 'now requires a second factor of its admins',
  all: 'now requires a second factor of every user',
  none: 'now requires no second factor',
} as const

/** What the account commands need from the command line that runs them (server/main.ts). */
interface AdminContext {
  argv: string[]
  io: { out: (line: string) => void; stdin: () => Promise<string> }
  /** The database of `--db`/`API_DB`. */
  dbOf: (options: Record<string, unknown>) => string
  /** Opens and migrates the store for one command, and closes it when `run` is done. */
  withStore: <T>(path: string, run: (store: Store) => T | Promise<T>) => Promise<T>
  /** The resources served (read when first asked): the scopes a client may be given. */
  schema: () => Schema
  /** One JSON object with `--json`, the text otherwise. */
  print: (json: boolean, value: Record<string, unknown>, text: string) => void
}

/**
 * `org`, `user` and `client`: the organizations, their users who log in and their OAuth clients
 * (docs/operations.md, "Admin commands").
 */
export function registerAccountCommands(cli: CAC, context: AdminContext): void {
  const { argv, io, dbOf, withStore, schema, print } = context
  const required = (options: Record<string, unknown>, name: string) => requiredText(options, name, argv)

  /** `org list`, `user list`, `client list`: `{"data": [...]}` with --json, a table otherwise. */
  const printListing = async (options: Record<string, unknown>, read: (store: Store) => Promise<Listing>) => {
    const listing = await withStore(dbOf(options), read)
    io.out(options.json ? JSON.stringify(listing.json) : listing.text)
  }

  cli
    .command(
      'org <action> [org]',
      'Organizations: org create --name N, org list, org update ORG --require-2fa admins|all|none',
    )
    .option('--name <name>', 'Organization name (unique whatever its case)')
    .option('--require-2fa <policy>', 'Who must have a second factor: admins, all or none')
    .action(async (action, target, options) => {
      const orgRef = target === undefined ? undefined : String(target)
      if (action === 'update') {
        if (orgRef === undefined) throw new UsageError('org update needs the organization (org update ORG)')
        const policy = parsePolicy(optionalText(options, 'require-2fa', argv))
        const org = await withStore(dbOf(options), (store) => updateOrgPolicy(store, orgRef, policy))
        return print(Boolean(options.json), org, `${org.name} (${org.id}) ${POLICY_WORDS[policy]}`)
      }
      if (orgRef !== undefined) throw new UsageError(`org ${action} takes no ORG argument (got "${orgRef}")`)
      if (action === 'list') return printListing(options, listOrgs)
      if (action !== 'create') throw new UsageError(unknownAction('org', action))
      const name = required(options, 'name')
      const org = await withStore(dbOf(options), (store) => store.orgs.createUnique(name))
      print(Boolean(options.json), { id: org.id }, `created organization ${org.name}: ${org.id}`)
    })

  cli
    .command('user <action>', 'Users: user create, user list --org ORG, user set-password, user reset-2fa')
    .option('--org <org>', 'Organization id or name')
    .option('--email <email>', 'Login e-mail')
    .option('--name <name>', 'Display name')
    .option('--role <role>', 'admin, member or viewer', { default: 'member' })
    .option('--password <password>', 'Password, at least 8 characters (shows in ps: prefer --password-stdin)')
    .option('--password-stdin', 'Read the password from the first line of standard input')
    .action(async (action, options) => {
      if (action === 'list') {
        const org = required(options, 'org')
        return printListing(options, (store) => listUsers(store, org))
      }
      if (action === 'set-password') {
        const input = {
          org: required(options, 'org'),
          email: required(options, 'email'),
          password: await passwordOf(options, argv, io.stdin),
        }
        const user = await withStore(dbOf(options), (store) => setPassword(store, input))
        return print(Boolean(options.json), { id: user.id }, `set the password of ${user.email}: ${user.id}`)
      }
      if (action === 'reset-2fa') {
        const input = { org: required(options, 'org'), email: required(options, 'email') }
        const outcome = await withStore(dbOf(options), (store) => resetSecondFactors(store, input))
        return print(Boolean(options.json), { ...outcome }, resetSentence(outcome))
      }
      if (action !== 'create') throw new UsageError(unknownAction('user', action))
      const input = {
        org: required(options, 'org'),
        email: required(options, 'email'),
        name: required(options, 'name'),
        role: String(options.role),
        password: await passwordOf(options, argv, io.stdin),
      }
      const user = await withStore(dbOf(options), (store) => createUser(store, input))
      print(Boolean(options.json), { id: user.id }, `created user ${input.email}: ${user.id}`)
    })

  cli
    .command(
      'client <action> [client]',
      'OAuth clients: client create, client list --org ORG, client update CLIENT --scope, client revoke CLIENT',
    )
    .option('--name <name>', 'Client name shown on consent pages')
    .option('--org <org>', 'Organization id or name (its tokens act in it)')
    .option('--public', 'A public client (no secret; PKCE required)')
    .option('--redirect-uri <uri>', 'Allowed redirect URI (repeatable)')
    .option('--grant-types <list>', `Comma-separated: ${GRANT_TYPES.join(', ')}`)
    .option('--scope <scopes>', 'Space-separated scopes it may ask for (create: default all)')
    .action(async (action, target, options) => {
      const id = target === undefined ? undefined : String(target)
      if (action === 'update' || action === 'revoke') {
        if (id === undefined)
          throw new UsageError(`client ${action} needs the client's id (client ${action} clt_...)`)
        return action === 'update' ? updateClient(id, options) : revoke(id, options)
      }
      if (id !== undefined) throw new UsageError(`client ${action} takes no CLIENT argument (got "${id}")`)
      if (action === 'list') {
        const org = required(options, 'org')
        return printListing(options, (store) => listClients(store, org))
      }
      if (action !== 'create') throw new UsageError(unknownAction('client', action))
      const name = required(options, 'name')
      const grantTypes = list(options.grantTypes)
      const badGrant = grantTypes.find((g) => !(GRANT_TYPES as readonly string[]).includes(g))
      if (badGrant) throw new UsageError(`unknown grant type ${badGrant} (known: ${GRANT_TYPES.join(', ')})`)
      const scope = parseScopes(schema(), list(options.scope))
      const redirectUris = list(options.redirectUri)
      // The rule /api/v2/oauth-clients applies (server/oauth/redirect-uri.ts).
      for (const uri of redirectUris) {
        const problem = redirectUriProblem(uri)
        if (problem) throw new UsageError(`--redirect-uri ${uri}: ${problem}`)
      }
      const isPublic = Boolean(options.public)
      if (isPublic && grantTypes.includes('client_credentials')) {
        throw new UsageError('a public client cannot use client_credentials')
      }
      const { client, secret } = await withStore(dbOf(options), async (store) =>
        store.clients.create({
          name,
          orgId: (await requireOrg(store, required(options, 'org'))).id,
          public: isPublic,
          redirectUris,
          grantTypes: grantTypes.length > 0 ? (grantTypes as GrantType[]) : undefined,
          scope: scope.length > 0 ? scope : undefined,
        }),
      )
      const result: Record<string, unknown> = { client_id: client.id }
      if (secret) result.client_secret = secret
      print(
        options.json,
        result,
        secret
          ? `created client ${client.name}\nclient_id:     ${client.id}\nclient_secret: ${secret}  (shown once; store it now)`
          : `created public client ${client.name}\nclient_id: ${client.id}`,
      )
    })

  const updateClient = async (id: string, options: Record<string, unknown>) => {
    const scope = parseScopes(schema(), list(required(options, 'scope')))
    if (scope.length === 0) throw new UsageError('--scope needs at least one scope')
    const client = await withStore(dbOf(options), (store) => updateClientScope(store, id, scope))
    print(
      Boolean(options.json),
      { client_id: client.id, scopes: client.scope },
      `updated client ${client.name} (${client.id}); it may now ask for: ${client.scope.join(' ')}`,
    )
  }
  const revoke = async (id: string, options: Record<string, unknown>) => {
    const { client, already } = await withStore(dbOf(options), (store) => revokeClient(store, id))
    print(
      Boolean(options.json),
      { client_id: client.id },
      already
        ? `client ${client.name} (${client.id}) was revoked already`
        : `revoked client ${client.name} (${client.id}): its tokens stop working, and it gets no new ones`,
    )
  }
}
