import type { CAC } from 'cac'
import { completionScript, SHELLS, type Shell } from '../completion.ts'
import { readSettings, SETTINGS, type Setting, settingsPath, writeSetting } from '../config.ts'
import { API_VERSIONS, type Context } from '../context.ts'
import { EXIT, NetworkError, UsageError } from '../errors.ts'
import { ApiClient } from '../http.ts'
import { FORMATS, printValue, renderTable } from '../output.ts'
import { suggest } from '../resources.ts'

type Run = (
  command: (ctx: Context, ...args: never[]) => Promise<unknown>,
) => (...args: unknown[]) => Promise<void>

/** A setting's value checked as the option it stands for would be. */
function checkSetting(key: Setting, value: string): void {
  const ok =
    key === 'url'
      ? URL.canParse(value) && /^https?:$/.test(new URL(value).protocol)
      : key === 'format'
        ? (FORMATS as readonly string[]).includes(value)
        : key === 'timeout'
          ? Number.isFinite(Number(value)) && Number(value) > 0
          : (API_VERSIONS as readonly string[]).includes(value)
  const expected = {
    url: 'an http or https URL',
    format: FORMATS.join(', '),
    timeout: 'a number of seconds',
    'api-version': API_VERSIONS.join(', '),
  }[key]
  if (!ok) throw new UsageError(`${key} takes ${expected} (not "${value}")`)
}

function settingOf(key: string | undefined): Setting {
  if (key !== undefined && Object.hasOwn(SETTINGS, key)) return key as Setting
  const hint = key === undefined ? undefined : suggest(key, Object.keys(SETTINGS))
  throw new UsageError(
    `${key === undefined ? 'no setting given' : `unknown setting "${key}"`}${hint ? ` (did you mean ${hint}?)` : ''}; settings: ${Object.keys(SETTINGS).join(', ')}`,
  )
}

/** `api config get KEY`, `set KEY VALUE`, `unset KEY`, `list`, for the profile in use. */
async function config(ctx: Context, action: string, args: string[]): Promise<number> {
  const { io } = ctx
  if (action === 'get') {
    const value = readSettings(io.env).profiles[ctx.profile]?.[settingOf(args[0])]
    if (value === undefined) return EXIT.api
    io.stdout(`${value}\n`)
  } else if (action === 'set') {
    const key = settingOf(args[0])
    if (args[1] === undefined || args.length > 2) throw new UsageError(`api config set ${key} VALUE`)
    checkSetting(key, args[1])
    writeSetting(io.env, key, args[1])
    io.stderr(`${ctx.profile}: ${key} set (${settingsPath(io.env)})\n`)
  } else if (action === 'unset') {
    const key = settingOf(args[0])
    if (args.length > 1) throw new UsageError(`api config unset ${key}`)
    // Unsetting what is not set changes nothing and is no error, so scripts can run it again.
    const was = readSettings(io.env).profiles[ctx.profile]?.[key]
    if (was !== undefined) writeSetting(io.env, key, null)
    io.stderr(`${ctx.profile}: ${key} ${was === undefined ? 'was not set' : 'unset'}\n`)
  } else if (action === 'list') {
    const rows = Object.entries(readSettings(io.env).profiles).flatMap(([profile, settings]) =>
      Object.entries(settings).map(([key, value]) => ({ profile, key, value })),
    )
    if (ctx.format === 'table') io.stdout(renderTable(rows, ['profile', 'key', 'value'], false, io.columns))
    else printValue(io, ctx.format, rows)
  } else {
    const hint = suggest(action, ['get', 'set', 'unset', 'list'])
    throw new UsageError(`api config takes get, set, unset or list${hint ? ` (did you mean ${hint}?)` : ''}`)
  }
  return EXIT.ok
}

/** `api version`: this CLI's version, and the API versions the server offers (`GET /api/versions`). */
async function version(ctx: Context, cli: string): Promise<void> {
  const table = ctx.format === 'table'
  // Its own version first: it is known even when the server cannot be reached.
  if (table) ctx.io.stdout(`api ${cli}\n`)
  // No login needed: the catalogue is public.
  const answer = await new ApiClient(ctx.io, ctx.server, null)
    .json<{ data?: unknown }>('GET', '/api/versions')
    .catch((error: unknown) => {
      // Unreachable: a script still gets the CLI's own version (apiVersions null), then the exit 3.
      if (!table && error instanceof NetworkError)
        printValue(ctx.io, ctx.format, { cli, server: ctx.server, apiVersions: null })
      throw error
    })
  const versions = Array.isArray(answer?.data) ? (answer.data as Record<string, unknown>[]) : []
  if (!table) {
    printValue(ctx.io, ctx.format, { cli, server: ctx.server, apiVersions: versions })
    return
  }
  ctx.io.stdout(`server ${ctx.server}\n`)
  const rows = versions.map((v) => ({ ...v, sunset: v.sunset ?? '' }))
  ctx.io.stdout(
    renderTable(rows, ['version', 'status', 'path', 'releasedAt', 'sunset'], false, ctx.io.columns),
  )
}

/** The commands every CLI is expected to have: `version`, `config`, `completion`. */
export function conventionCommands(cli: CAC, run: Run, cliVersion: string): void {
  cli
    .command('version', 'Show the version of api and the API versions the server offers')
    .action(run((ctx) => version(ctx, cliVersion)))
  cli
    .command(
      'config <action> [...args]',
      'get KEY, set KEY VALUE, unset KEY or list the settings of profiles',
    )
    .example('api config set url https://api.example.com --profile prod')
    .example('api config list')
    // A profile comes into being with its first setting.
    .action((...args: unknown[]) => {
      Object.assign(args.at(-1) as object, { profileMayBeNew: true })
      return run((ctx, action: string, rest: string[]) => config(ctx, action, rest))(...args)
    })
  cli
    .command('completion <shell>', 'Print the completion script of bash, zsh or fish')
    .example('source <(api completion bash)')
    .example('api completion fish > ~/.config/fish/completions/api.fish')
    .action(
      run(async (ctx, shell: string) => {
        if (!(SHELLS as readonly string[]).includes(shell)) {
          const hint = suggest(shell, SHELLS)
          throw new UsageError(
            `api completion takes ${SHELLS.join(', ')} (not "${shell}"${hint ? `; did you mean ${hint}?` : ''})`,
          )
        }
        ctx.io.stdout(completionScript(cli, shell as Shell, ctx.schema))
      }),
    )
}
