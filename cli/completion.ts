import type { CAC } from 'cac'
import type { Schema } from '../shared/schema/schema.ts'
import { filterOptions } from './resources.ts'

export const SHELLS = ['bash', 'zsh', 'fish'] as const
export type Shell = (typeof SHELLS)[number]

/** Commands whose first argument is a collection. */
export const TAKES_COLLECTION = [
  'list',
  'aggregate',
  'get',
  'create',
  'update',
  'replace',
  'delete',
  'query',
  'action',
  'import',
] as const
/** Commands whose options include the collection's filters. */
const TAKES_FILTERS = ['list', 'aggregate', 'delete']
/** What follows a command word that is not a collection. */
const SUBWORDS: Record<string, string[]> = {
  completion: ['bash', 'zsh', 'fish'],
  config: ['get', 'set', 'unset', 'list'],
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

function wordsOf(cli: CAC, schema: Schema): Words {
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
    filters: Object.fromEntries(schema.resources.map((r) => [r.name, filterOptions(r).map((f) => `--${f}`)])),
  }
}

function bash(w: Words): string {
  const cases = (entries: [string, string[]][]) =>
    entries.map(([key, list]) => `      ${key}) words="$words ${list.join(' ')}" ;;`).join('\n')
  return `# api completion for bash: source <(api completion bash)
_api() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmd="" coll="" words="" i w skip=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if [[ -n $skip ]]; then skip=""; continue; fi
    case $w in
      ${w.valued.join('|')}) skip=1 ;;
      -*) ;;
      *)
        if [[ -z $cmd ]]; then cmd=$w
        elif [[ -z $coll ]]; then
          # books/bok_…/chapters: the filters are the child collection's. (Parameter expansion
          # rather than \`read -a\`, which zsh's read, under bashcompinit, does not have.)
          coll=\${w#*/*/}
          coll=\${coll%%/*}
          [[ $w == */*/?* ]] || coll=\${w%%/*}
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
  const when = (condition: string) => `complete -c api -n ${quote(`__api_at ${condition}`)}`
  // The words before the cursor read as the bash function reads them: a global option's value
  // (\`api --profile staging list\`) is neither the command nor the collection, and a nested path
  // (\`books/bok_…/chapters\`) names its child collection.
  const parse = `function __api_at --description 'Whether api completes here: command, collection CMD…, option CMD…, filter COLL'
    set -l cmd ''
    set -l coll ''
    set -l skip ''
    for w in (commandline -opc)[2..-1]
        if test -n "$skip"
            set skip ''
            continue
        end
        switch $w
            case ${w.valued.join(' ')}
                set skip 1
            case '-*'
            case '*'
                if test -z "$cmd"
                    set cmd $w
                else if test -z "$coll"
                    set -l parts (string split / -- $w)
                    set coll $parts[1]
                    test -n "$parts[3]"; and set coll $parts[3]
                end
        end
    end
    switch $argv[1]
        case command
            test -z "$cmd"
        case collection
            contains -- "$cmd" $argv[2..-1]; and test -z "$coll"
        case option
            contains -- "$cmd" $argv[2..-1]
        case filter
            contains -- "$cmd" ${TAKES_FILTERS.join(' ')}; and test "$coll" = "$argv[2]"
    end
end`
  const lines = [
    '# api completion for fish: api completion fish | source',
    parse,
    'complete -c api -f',
    ...w.commands.map((c) => `${when('command')} -a ${c.name} -d ${quote(c.description)}`),
    ...w.global.map((o) => `complete -c api ${fishFlag(o)}${w.valued.includes(o) ? ' -x' : ''}`),
    ...w.commands.flatMap((c) => c.options.map((o) => `${when(`option ${c.name}`)} ${fishFlag(o)}`)),
    `${when(`collection ${TAKES_COLLECTION.join(' ')}`)} -a ${quote(Object.keys(w.filters).join(' '))}`,
    ...Object.entries(SUBWORDS).map(
      ([key, list]) => `${when(`collection ${key}`)} -a ${quote(list.join(' '))}`,
    ),
    ...Object.entries(w.filters).flatMap(([name, filters]) =>
      filters.map((f) => `${when(`filter ${name}`)} ${fishFlag(f)}`),
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
export function completionScript(cli: CAC, shell: Shell, schema: Schema): string {
  const words = wordsOf(cli, schema)
  if (shell === 'fish') return fish(words)
  if (shell === 'bash') return bash(words)
  return `#compdef api
# api completion for zsh: source <(api completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(words).split('\n').slice(1).join('\n')}`
}
