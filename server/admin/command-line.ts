/**
 * The shape of an `api-server` command line: global flags may come before the command
 * (`api-server --db X migrate`), and `serve` is the command when none is named.
 */

/** The actions of the commands that take one, for their `--help` and their errors. */
const ACTIONS: Record<string, { usage: string; description: string }[]> = {
  org: [
    {
      usage: 'org create --name N',
      description: 'Create an organization (names are unique whatever their case)',
    },
    { usage: 'org list', description: 'List the organizations with their second-factor policy' },
    {
      usage: 'org update ORG --require-2fa admins|all|none',
      description: 'Require a second factor of its admins, of every user, or of no one',
    },
  ],
  user: [
    {
      usage: 'user create --org ORG --email E --name N --role R (--password P | --password-stdin)',
      description: 'Create a user who can log in (role: admin, member or viewer)',
    },
    {
      usage: 'user list --org ORG',
      description: "List the organization's users (with whether each has a second factor)",
    },
    {
      usage: 'user set-password --org ORG --email E (--password-stdin | --password P)',
      description: "Set a user's password (--password-stdin reads the first line of standard input)",
    },
    {
      usage: 'user reset-2fa --org ORG --email E',
      description: "Remove a user's authenticator app, recovery codes and passkeys (one who lost them all)",
    },
  ],
  client: [
    {
      usage:
        'client create --name N --org ORG [--public] [--redirect-uri URI]... [--grant-types a,b] [--scope "s1 s2"]',
      description: 'Register an OAuth client',
    },
    { usage: 'client list --org ORG', description: "List the organization's clients (never a secret)" },
    { usage: 'client update CLIENT --scope "s1 s2"', description: 'Replace the scopes a client may ask for' },
    {
      usage: 'client revoke CLIENT',
      description: 'Disable a client for good: its tokens stop working and it gets no new ones',
    },
  ],
  schema: [
    {
      usage: 'schema print',
      description: 'Print the schema in force (--schema FILE, or the built-in example) as JSON',
    },
    {
      usage: 'schema json-schema',
      description: 'Print the JSON Schema of schema files, which editors check them with',
    },
  ],
  keys: [
    {
      usage: 'keys rotate',
      description: 'Add a new signing key; older keys stay published until their tokens expire',
    },
  ],
}

/** The one-line reason for an action a command does not have. */
export function unknownAction(command: string, action: string): string {
  const known = ACTIONS[command]?.map((a) => a.usage) ?? []
  return `unknown action "${command} ${action}" (try: ${known.join('; ')})`
}

/** The help section listing a command's actions (`api-server org --help`). */
export function actionsSection(command: string | undefined): { title: string; body: string } | undefined {
  const actions = command === undefined ? undefined : ACTIONS[command]
  if (!actions) return undefined
  return {
    title: 'Actions',
    body: actions.map((a) => `  $ api-server ${a.usage}\n      ${a.description}`).join('\n'),
  }
}

const INFO_FLAGS = new Set(['-h', '--help', '-v', '--version'])

/**
 * The argv with the command first: the first word that is not a flag or a flag's value is the
 * command, and the flags before it go after it. Without one it is `serve`, unless help or the
 * version is asked for. `takesValue` says which flags consume the next word.
 */
export function commandFirst(argv: string[], takesValue: (flag: string) => boolean): string[] {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') break
    if (arg.startsWith('-')) {
      if (!arg.includes('=') && takesValue(arg)) i++
      continue
    }
    return [arg, ...argv.slice(0, i), ...argv.slice(i + 1)]
  }
  return argv.some((arg) => INFO_FLAGS.has(arg)) ? argv : ['serve', ...argv]
}
