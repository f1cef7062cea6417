import type { CAC, Command } from 'cac'
import { suggest } from './suggest.ts'

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/**
 * The options a cac command accepts, as typed (`base-url`, `h`, `no-cache`), each with whether it
 * takes a value: the command's own and the global ones, without `--version` inside a command.
 */
export function acceptedOptions(cli: CAC, command: Command): Map<string, boolean> {
  const names = new Map<string, boolean>()
  for (const option of [...command.options, ...cli.globalCommand.options]) {
    for (const name of option.names) {
      const typed = name.length === 1 ? name : kebab(name)
      names.set(typed, !option.isBoolean)
      // cac names `--no-cache` `cache`, and takes both spellings.
      if (option.negated) names.set(`no-${typed}`, false)
    }
  }
  if (command !== cli.globalCommand) names.delete('version')
  return names
}

/**
 * The first option of `argv` that is not in `names` (until `--`), as typed (`--prot`), with the
 * accepted long option nearest to it; undefined when every option is known. cac itself reports an
 * unknown option camel-cased and without a suggestion.
 */
export function unknownOption(
  argv: readonly string[],
  names: ReadonlyMap<string, boolean>,
): { typed: string; long: boolean; hint?: string } | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') return undefined
    const match = /^-(-?)([^=]+)(=?)/.exec(arg)
    if (!match || /^-\d/.test(arg)) continue
    const [, long, name, inline] = match
    const takes = names.get(name!)
    if (takes !== undefined) {
      if (takes && !inline) i++
      continue
    }
    const hint = suggest(
      name!,
      [...names.keys()].filter((n) => n.length > 1),
    )
    return {
      typed: `${long ? '--' : '-'}${name}`,
      long: Boolean(long),
      ...(hint ? { hint: `--${hint}` } : {}),
    }
  }
  return undefined
}
