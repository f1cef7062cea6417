import type { CAC } from 'cac'
import { RESOURCES } from '../shared/resources/index.ts'
import { filterFlags } from './resources.ts'

export const SHELLS = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof SHELLS)[number]

/** Commands whose first argument is a collection. */
const TAKES_COLLECTION = ['list', 'get', 'create', 'update', 'replace', 'delete', 'query', 'action']
/** Commands whose options include the collection's filters. */
const TAKES_FILTERS = ['list', 'delete']
/** What follows a command word that is not a collection. */
const SUBWORDS: Record<string, string[]> = {
  completion: ['bash', 'zsh', 'fish'],
  config: ['get', 'set', 'list'],
  request: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'QUERY', 'OPTIONS'],
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)
const flag = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`)

interface Words {
  commands: { name: string; description: string; options: string[] }[]
  global: string[]
  /** Global options that take a value (skipped when finding the command word). */
  valued: string[]
  filters: Record<string, string[]>
}

function wordsOf(cli: CAC): Words {
  const names = (options: CAC['globalCommand']['options']) =>
    options.flatMap((o) => o.names.map((n) => flag(n.length === 1 ? n : kebab(n))))
  return {
    commands: cli.commands
      .filter((c) => c.name)
      .map((c) => ({ name: c.name, description: c.description, options: names(c.options) })),
    global: names(cli.globalCommand.options),
    valued: cli.globalCommand.options
      .filter((o) => !o.isBoolean)
      .flatMap((o) => o.names.map((n) => flag(n.length === 1 ? n : kebab(n)))),
    filters: Object.fromEntries(RESOURCES.map((r) => [r.name, filterFlags(r).map((f) => `--${f.flag}`)])),
  }
}

function bash(w: Words): string {
  const cases = (entries: [string, string[]][]) =>
    entries.map(([key, list]) => `      ${key}) words="$words ${list.join(' ')}" ;;`).join('\n')
  return `# api completion for bash: source <(api completion bash)
_api() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmd="" coll="" words="" i w skip="" parts
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if [[ -n $skip ]]; then skip=""; continue; fi
    case $w in
      ${w.valued.join('|')}) skip=1 ;;
      -*) ;;
      *)
        if [[ -z $cmd ]]; then cmd=$w
        elif [[ -z $coll ]]; then
          # posts/pst_…/comments: the filters are the child collection's.
          IFS=/ read -ra parts <<< "$w"
          coll=\${parts[2]:-\${parts[0]}}
        fi ;;
    esac
  done
  if [[ $cur == -* ]]; then
    words="${w.global.join(' ')}"
    case $cmd in
${cases(w.commands.map((c) => [c.name, c.options]))}
    esac
    case " ${TAKES_FILTERS.join(' ')} " in
      *" $cmd "*)
        case $coll in
${cases(Object.entries(w.filters)).replace(/^ {6}/gm, '          ')}
        esac ;;
    esac
  elif [[ -z $cmd ]]; then
    words="${w.commands.map((c) => c.name).join(' ')}"
  elif [[ -z $coll ]]; then
    case $cmd in
      ${TAKES_COLLECTION.join('|')}) words="${Object.keys(w.filters).join(' ')}" ;;
${Object.entries(SUBWORDS)
  .map(([key, list]) => `      ${key}) words="${list.join(' ')}" ;;`)
  .join('\n')}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _api api
`
}

function fish(w: Words): string {
  const quote = (text: string) => `'${text.replace(/[\\']/g, '\\$&')}'`
  const lines = [
    '# api completion for fish: api completion fish | source',
    'complete -c api -f',
    ...w.commands.map(
      (c) => `complete -c api -n __fish_use_subcommand -a ${c.name} -d ${quote(c.description)}`,
    ),
    ...w.global.map((o) => `complete -c api ${fishFlag(o)}`),
    ...w.commands.flatMap((c) =>
      c.options.map((o) => `complete -c api -n '__fish_seen_subcommand_from ${c.name}' ${fishFlag(o)}`),
    ),
    `complete -c api -n '__fish_seen_subcommand_from ${TAKES_COLLECTION.join(' ')}; and test (count (commandline -opc)) -eq 2' -a ${quote(Object.keys(w.filters).join(' '))}`,
    ...Object.entries(SUBWORDS).map(
      ([key, list]) =>
        `complete -c api -n '__fish_seen_subcommand_from ${key}; and test (count (commandline -opc)) -eq 2' -a ${quote(list.join(' '))}`,
    ),
    ...Object.entries(w.filters).flatMap(([name, filters]) =>
      filters.map(
        (f) =>
          `complete -c api -n '__fish_seen_subcommand_from ${TAKES_FILTERS.join(' ')}; and __fish_seen_subcommand_from ${name}' ${fishFlag(f)}`,
      ),
    ),
  ]
  return `${lines.join('\n')}\n`
}

const fishFlag = (option: string) =>
  option.startsWith('--') ? `-l ${option.slice(2)}` : `-s ${option.slice(1)}`

/**
 * The completion script of a shell: commands, options, collection names and each collection's
 * filters, all taken from the command definitions and the resource declarations. zsh runs the
 * bash function through its bashcompinit layer.
 */
export function completionScript(cli: CAC, shell: Shell): string {
  const words = wordsOf(cli)
  if (shell === 'fish') return fish(words)
  if (shell === 'bash') return bash(words)
  return `#compdef api
# api completion for zsh: source <(api completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(words).split('\n').slice(1).join('\n')}`
}
