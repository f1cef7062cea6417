import type { CAC, Command } from 'cac'
import type { Schema } from '../shared/schema/schema.ts'
import { UsageError } from './errors.ts'
import { filterOptions, parseTarget, suggest } from './resources.ts'

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
const shown = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`)

/** The names a command accepts, as typed (`if-match`, `H`), each with whether it takes a value. */
function accepted(cli: CAC, command: Command): Map<string, boolean> {
  const names = new Map<string, boolean>()
  for (const option of [...command.options, ...cli.globalCommand.options])
    for (const name of option.names) names.set(name.length === 1 ? name : kebab(name), !option.isBoolean)
  // `api --version` alone prints the version; in a command it would be ignored silently.
  if (command !== cli.globalCommand) names.delete('version')
  return names
}

/** The filters of `api list`/`api delete` for the collection typed, when it is one. */
function filtersOf(schema: Schema, command: Command, args: readonly string[]): string[] {
  if (!['list', 'delete'].includes(command.name) || !args[0]) return []
  try {
    return filterOptions(parseTarget(schema, '', args[0]).resource)
  } catch {
    // An unknown collection is reported by the command itself, with its own suggestion.
    return []
  }
}

/**
 * The option parser (cac) reports an unknown option camel-cased (`--if-matc` as `--ifMatc`) and
 * without a suggestion, so every option typed is checked here first, against the command's and
 * the global options (and a collection's filters), and named as it was typed with the nearest
 * one it may have meant.
 */
export function checkOptions(
  schema: Schema,
  cli: CAC,
  command: Command,
  argv: readonly string[],
  args: readonly string[],
) {
  const names = accepted(cli, command)
  const filters = filtersOf(schema, command, args)
  for (const filter of filters) names.set(filter, true)
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') return
    const match = /^-(-?)([^=]+)(=?)/.exec(arg)
    if (!match || /^-\d/.test(arg)) continue
    const [, long, name, inline] = match
    const takes = names.get(name!)
    if (takes !== undefined) {
      if (takes && !inline) i++
      continue
    }
    const typed = `${long ? '--' : '-'}${name}`
    const hint = suggest(
      name!,
      [...names.keys()].filter((n) => n.length > 1),
    )
    const did = hint ? ` (did you mean ${shown(hint)}?)` : ''
    // `api list COLLECTION --help` lists the filters (also those of a bulk delete).
    if (filters.length > 0 && long)
      throw new UsageError(`unknown filter ${typed} for ${args[0]}${did}; see: api list ${args[0]} --help`)
    const global = command === cli.globalCommand
    throw new UsageError(
      `unknown option ${typed}${global ? '' : ` for api ${command.name}`}${did}; see: api ${global ? '' : `${command.name} `}--help`,
    )
  }
}

/** An unknown command, named as typed, with the nearest command it may have meant. */
export function unknownCommand(cli: CAC, typed: string): UsageError {
  const hint = suggest(typed, cli.commands.map((c) => c.name).filter(Boolean))
  return new UsageError(
    `unknown command "${typed}"${hint ? ` (did you mean ${hint}?)` : ''}; see: api --help`,
  )
}
