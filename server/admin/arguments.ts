/** Reading `api-server`'s flags as typed, and the error that says the command line is wrong (exit 2). */

/** A command line the command cannot run: exit 2, like any usage error. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** The text of an option as typed: the parser turns number-like values (`--db 123`) into numbers. */
export function optionalText(
  options: Record<string, unknown>,
  name: string,
  argv: string[],
): string | undefined {
  let value = options[name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())]
  if (typeof value === 'number') {
    for (const [i, arg] of argv.entries()) {
      if (arg === `--${name}`) value = argv[i + 1]
      else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3)
    }
  }
  return typeof value === 'string' ? value : undefined
}

/**
 * A required text flag, as typed: cac (through mri) turns number-like values into numbers, which
 * would make the password "0123456789" the number 123456789 and reject `--name 2024`.
 */
export function requiredText(options: Record<string, unknown>, name: string, argv: string[]): string {
  const value = optionalText(options, name, argv)
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`)
  return value
}

/**
 * The password of `user create` and `user set-password`: `--password P`, or with `--password-stdin`
 * the first line of standard input, which keeps it out of `ps` and the shell's history.
 */
export async function passwordOf(
  options: Record<string, unknown>,
  argv: string[],
  stdin: () => Promise<string>,
): Promise<string> {
  const given = optionalText(options, 'password', argv)
  if (!options.passwordStdin) {
    if (given === undefined || given === '')
      throw new UsageError('--password or --password-stdin is required')
    return given
  }
  if (given !== undefined) throw new UsageError('give --password or --password-stdin, not both')
  const line = (await stdin()).split(/\r?\n/)[0] ?? ''
  if (line === '') throw new UsageError('--password-stdin found no password on standard input')
  return line
}

/** A flag given once or repeated, each value split at spaces and commas. */
export function list(value: unknown): string[] {
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [value]).flatMap((v) => String(v).split(/[\s,]+/)).filter(Boolean)
}
