import type { CAC, Command } from 'cac'
import { acceptedOptions, unknownOption } from '../shared/option-typos.ts'
import type { Schema } from '../shared/schema/schema.ts'
import { UsageError } from './errors.ts'
import { filterOptions, parseTarget, suggest } from './resources.ts'

/** The filters of `api list`/`api delete`/`api aggregate` for the collection typed, when it is one. */
function filtersOf(schema: Schema, command: Command, args: readonly string[]): string[] {
  if (!['list', 'delete', 'aggregate'].includes(command.name) || !args[0]) return []
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
  const names = acceptedOptions(cli, command)
  const filters = filtersOf(schema, command, args)
  for (const filter of filters) names.set(filter, true)
  const unknown = unknownOption(argv, names)
  if (unknown === undefined) return
  const did = unknown.hint ? ` (did you mean ${unknown.hint}?)` : ''
  // `api list COLLECTION --help` lists the filters (also those of a bulk delete).
  if (filters.length > 0 && unknown.long)
    throw new UsageError(
      `unknown filter ${unknown.typed} for ${args[0]}${did}; see: api list ${args[0]} --help`,
    )
  const global = command === cli.globalCommand
  throw new UsageError(
    `unknown option ${unknown.typed}${global ? '' : ` for api ${command.name}`}${did}; see: api ${global ? '' : `${command.name} `}--help`,
  )
}

/** An unknown command, named as typed, with the nearest command it may have meant. */
export function unknownCommand(cli: CAC, typed: string): UsageError {
  const hint = suggest(typed, cli.commands.map((c) => c.name).filter(Boolean))
  return new UsageError(
    `unknown command "${typed}"${hint ? ` (did you mean ${hint}?)` : ''}; see: api --help`,
  )
}
