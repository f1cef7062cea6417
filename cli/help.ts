import { serverUrl } from './config.ts'
import { EXIT } from './errors.ts'

/** The environment variables the CLI reads (docs/cli.md, "Configuration", says more of each). */
const ENVIRONMENT: readonly (readonly [string, string])[] = [
  ['API_URL', "the server (default: the profile's url, else http://127.0.0.1:8080)"],
  ['API_PROFILE', 'the profile in use (default: default); --profile wins'],
  ['API_TOKEN', 'an access token used as it is: no login, never stored or renewed'],
  ['API_CLIENT_ID, API_CLIENT_SECRET', 'the client of api login --client-credentials (CI)'],
  ['API_CA_CERT', 'a PEM file of a CA to trust besides the public ones (a private CA)'],
  ['API_WEBHOOK_SECRET', 'the whsec_… secret api webhooks listen signs with'],
  ['XDG_CONFIG_HOME', 'settings and logins are in $XDG_CONFIG_HOME/api/ (default ~/.config/api/)'],
  ['NO_COLOR, FORCE_COLOR', 'never colour; colour even when not on a terminal'],
  ['COLUMNS', "the width tables fit into (default: the terminal's)"],
]

/** What each exit status means (docs/cli.md, "Exit statuses"). */
const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: 'success',
  api: 'the API answered an error, or a GraphQL answer has errors',
  usage: 'a usage error: unknown command, option, collection or filter, bad field, no --confirm',
  network: 'the server could not be reached or did not answer in time',
  auth: 'authentication needed: not logged in, or the login was refused or has expired',
  interrupted: 'interrupted with Ctrl-C',
}

interface Section {
  title?: string
  body: string
}

const table = (rows: readonly (readonly [string, string])[]) => {
  const width = Math.max(...rows.map(([left]) => left.length))
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join('\n')
}

/**
 * `api --help` ends with what a script and a newcomer need besides the commands: the environment
 * variables, the exit statuses and where the documentation is. The list of `api COMMAND --help`
 * lines that cac prints becomes one line per kind of help.
 */
export function globalHelp(sections: Section[], env: Record<string, string | undefined>): Section[] {
  // Only the global help lists the commands; a command's own help stays as it is.
  if (!sections.some((s) => s.title === 'Commands')) return sections
  const more: Section = {
    title: 'More help',
    body: table([
      ['api COMMAND --help', "a command's options and examples"],
      ['api list COLLECTION --help', "a collection's filters, sort fields and relations"],
    ]),
  }
  const exits = Object.entries(EXIT).map(
    ([name, code]) => [String(code), EXIT_MEANINGS[name as keyof typeof EXIT]] as const,
  )
  return [
    ...sections.map((s) => (s.title?.startsWith('For more info') ? more : s)),
    { title: 'Environment variables', body: table(ENVIRONMENT) },
    { title: 'Exit statuses', body: table(exits) },
    {
      title: 'Documentation',
      body: table([
        ['docs/cli.md', 'this CLI in full (in the source of the service)'],
        [`${serverUrl(env)}/docs`, 'the API reference, served by the server'],
      ]),
    },
  ]
}
