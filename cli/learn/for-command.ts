/** Which commands learn the server's collections before they run, and how (cli/learn/learn.ts). */
import { createSchema, type Schema } from '../../shared/schema/schema.ts'
import { TAKES_COLLECTION } from '../completion.ts'
import { makeContext } from '../context.ts'
import type { Io } from '../io.ts'
import { learnSchema } from './learn.ts'

/** Commands that name a collection, and `completion`, which lists them: they learn the server's. */
const LEARNING = new Set<string>([...TAKES_COLLECTION, 'completion'])
/** Global options that take a value: the word after one is not the command. */
const VALUED = new Set(['--format', '--timeout', '--api-version', '--profile'])

/** The words typed that are not options (nor a global option's value): the command and its arguments. */
export function wordsOf(argv: readonly string[]): string[] {
  return argv.filter((arg, i) => !arg.startsWith('-') && !VALUED.has(argv[i - 1] ?? ''))
}

/**
 * The collections the command needs, learned from the server (cli/learn/learn.ts), and the API
 * version they are of; none for a command that names none. A help that names no collection does
 * without them when they cannot be learned.
 */
export async function collectionsFor(
  io: Io,
  argv: readonly string[],
  raw: Map<string, string[]>,
): Promise<{ schema: Schema; version: string }> {
  const none = createSchema([])
  const [command, collection] = wordsOf(argv)
  // The others build their own context (`api config` may name a profile not made yet).
  if (command === undefined || !LEARNING.has(command)) return { schema: none, version: 'v2' }
  const last = (name: string) => raw.get(name)?.at(-1)
  const ctx = makeContext(
    io,
    {
      profile: last('profile'),
      apiVersion: last('api-version'),
      timeout: last('timeout'),
      // Not --verbose: the exchange it shows is the command's own.
    },
    none,
  )
  const version = ctx.prefix.slice('/api/'.length)
  try {
    return { schema: await learnSchema(ctx), version }
  } catch (error) {
    if ((raw.has('help') || raw.has('h')) && collection === undefined) return { schema: none, version }
    throw error
  }
}
