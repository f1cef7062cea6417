/**
 * A port for a smoke script's server: random, so that two runs on one machine do not meet, and
 * below 32768, where Linux's ephemeral range starts: a port in that range may be held by one of
 * the many outgoing connections the test suite leaves in TIME_WAIT, and the server then fails to
 * bind it.
 */
export const smokePort = () => 20000 + Math.floor(Math.random() * 12000)

/** A client's credentials as `api-server client create --json` prints them. */
export interface SmokeClient {
  client_id: string
  client_secret: string
}

/**
 * Runs the compiled `api` in `dir` against `url` with the client's credentials and a config
 * directory of its own; its output, or a throw unless it exits `status`.
 */
export function runCompiledCli(
  cli: { binary: string; dir: string; url: string; client: SmokeClient },
  args: string[],
  status = 0,
): { stdout: string; stderr: string } {
  const result = Bun.spawnSync([cli.binary, ...args], {
    cwd: cli.dir,
    env: {
      PATH: '/usr/bin:/bin',
      XDG_CONFIG_HOME: `${cli.dir}/config`,
      API_URL: cli.url,
      API_CLIENT_ID: cli.client.client_id,
      API_CLIENT_SECRET: cli.client.client_secret,
    },
  })
  if (result.exitCode !== status)
    throw new Error(`api ${args.join(' ')} exited ${result.exitCode}: ${result.stderr.toString()}`)
  return { stdout: result.stdout.toString(), stderr: result.stderr.toString() }
}
