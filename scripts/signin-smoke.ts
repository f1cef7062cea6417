/**
 * Smoke-runs signing in on a compiled `api-server`, end to end in Chromium: from an empty
 * directory (its own SQLite file) it migrates, makes two organizations (the second requiring a
 * second factor of its admins) and a user in each, and serves with `--idp` naming a real
 * `oidc-provider` it starts on a loopback port. A person then signs in with that provider, enrols
 * an authenticator app and a passkey (a virtual authenticator) on /account, signs out and in again
 * with each, uses a recovery code once and sees it refused the second time; the admin of the
 * second organization is led to enrol before the consent page. Every sign-in goes through the
 * authorization code flow of the CLI's client and ends in a token for that user that the API takes.
 * One line per step; on the first failure, what failed and exit 1.
 * Usage: bun scripts/signin-smoke.ts dist/api-server
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Browser } from 'playwright-core'
import type { Upstream } from '../test/idp/upstream.ts'
import { startClientSite } from '../test/oauth/browser.ts'
import { totpCode } from '../test/signin/support.ts'
import { launchChromium, virtualAuthenticator } from '../test/signin/webauthn.ts'
import { pagesOf, StepFailed, step, tokenFor, watch } from './signin-smoke-pages.ts'
import { smokePort } from './smoke-support.ts'

const binary = resolve(process.argv[2] ?? 'dist/api-server')
if (!existsSync(binary)) {
  console.error(
    `FAIL  no ${binary}: run npm run build first (usage: bun scripts/signin-smoke.ts dist/api-server)`,
  )
  process.exit(1)
}
const dir = mkdtempSync(join(tmpdir(), 'api-signin-smoke-'))
const server = join(dir, 'api-server')
copyFileSync(binary, server)
const PASSWORD = 'signin smoke password'

/** Runs an admin command in the directory (the password, when given, on standard input); its stdout. */
function run(args: string[], stdin?: string): string {
  const result = Bun.spawnSync([server, ...args], {
    cwd: dir,
    env: { PATH: '/usr/bin:/bin' },
    stdin: stdin === undefined ? 'ignore' : Buffer.from(`${stdin}\n`),
  })
  if (result.exitCode !== 0)
    throw new Error(
      `api-server ${args.join(' ')} exited ${result.exitCode}: ${result.stderr.toString().trim()}`,
    )
  return result.stdout.toString()
}

// One line a step: the local provider's notices about itself (its in-memory store, its development
// pages, the runtime) and the deprecation warning of a dependency of it say nothing about the server.
for (const level of ['info', 'warn'] as const) {
  const print = console[level]
  console[level] = (...args: unknown[]) => {
    if (!String(args[0]).includes('oidc-provider ')) print(...args)
  }
}
process.noDeprecation = true
// Imported once the notices are filtered: it warns about the runtime as it loads.
const { startUpstream, UPSTREAM_CLIENT_ID, UPSTREAM_SECRET } = await import('../test/idp/upstream.ts')

const cleanups: (() => unknown)[] = []
let failed = false
try {
  const { alice, bob } = await step(
    'an empty SQLite database, two organizations and their users',
    async () => {
      run(['migrate'])
      const org = (name: string) =>
        (JSON.parse(run(['org', 'create', '--name', name, '--json'])) as { id: string }).id
      const user = (org: string, email: string, name: string, role: string) => {
        const args = ['user', 'create', '--org', org, '--email', email, '--name', name, '--role', role]
        const created = JSON.parse(run([...args, '--password-stdin', '--json'], PASSWORD)) as { id: string }
        return { id: created.id, email }
      }
      const acme = org('Acme')
      const globex = org('Globex')
      run(['org', 'update', globex, '--require-2fa', 'admins'])
      return {
        alice: user(acme, 'alice@acme.example', 'Alice', 'member'),
        bob: user(globex, 'bob@globex.example', 'Bob', 'admin'),
      }
    },
  )

  const port = smokePort()
  const base = `http://localhost:${port}`
  const upstream: Upstream = await step(
    'a local OpenID Connect provider',
    async () => {
      const started = await startUpstream()
      cleanups.push(() => started.stop())
      await started.start([`${base}/login/corp/callback`])
      return started
    },
    (u) => u.issuer,
  )

  const serving = await step(
    'api-server serve --idp',
    async () => {
      const idp = {
        providers: {
          corp: {
            type: 'oidc',
            name: 'Corp SSO',
            issuer: upstream.issuer,
            clientId: UPSTREAM_CLIENT_ID,
            clientSecret: UPSTREAM_SECRET,
          },
        },
      }
      writeFileSync(join(dir, 'idp.json'), JSON.stringify(idp))
      const child = Bun.spawn(
        [server, 'serve', '--port', String(port), '--base-url', base, '--idp', 'idp.json'],
        {
          cwd: dir,
          env: { PATH: '/usr/bin:/bin' },
          stdout: 'ignore',
          // A file, not a pipe nobody reads: a full pipe would stall the server's log.
          stderr: Bun.file(join(dir, 'server.log')),
        },
      )
      cleanups.push(() => child.kill())
      for (
        let i = 0;
        !(await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        ));
        i++
      ) {
        if (i > 100 || child.exitCode !== null) {
          const log = readFileSync(join(dir, 'server.log'), 'utf8').trim().split('\n')
          throw new Error(`the server did not start: ${log.slice(-3).join(' | ')}`)
        }
        await Bun.sleep(100)
      }
      return child
    },
    () => base,
  )

  const site = startClientSite()
  cleanups.push(() => site.stop())
  const browser: Browser = await launchChromium()
  cleanups.push(() => browser.close())

  const { authorize, password, atVerify, enrolTotp, signOut } = pagesOf(base, site.origin, PASSWORD)
  /** A page with cookies of its own and a virtual authenticator (the DevTools protocol's WebAuthn). */
  const newPage = async () => {
    const page = watch(await (await browser.newContext()).newPage())
    return { page, authenticator: await virtualAuthenticator(page) }
  }

  const { page, authenticator } = await newPage()
  await step(
    'signed in with Corp SSO',
    () =>
      authorize(page, async () => {
        await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click()
        // The local provider's own development pages.
        await page.getByPlaceholder('Enter any login').fill(alice.email)
        await page.getByPlaceholder('and password').fill('anything')
        await page.getByRole('button', { name: 'Sign-in' }).click()
        await page.getByRole('button', { name: 'Continue' }).click()
      }),
    tokenFor(alice),
  )

  const { key, codes } = await step(
    'enrolled an authenticator app on /account',
    async () => {
      await page.goto(`${base}/account`)
      await page.getByRole('heading', { name: 'Your account' }).waitFor()
      return enrolTotp(page)
    },
    (r) => `${r.codes.length} recovery codes shown`,
  )

  await step('added a passkey on /account', async () => {
    await page.getByLabel('Passkey name').fill('Smoke laptop')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page
      .getByRole('region', { name: 'Passkeys' })
      .getByRole('button', { name: 'Remove Smoke laptop' })
      .waitFor()
    const held = await authenticator.credentials()
    if (held.length !== 1) throw new Error(`the authenticator holds ${held.length} credentials`)
  })

  await step('signed out', () => signOut(page))
  await step(
    'signed in with the password and a code from the authenticator app',
    () =>
      authorize(page, async () => {
        await password(page, alice.email)
        await atVerify(page)
        // The next step's code: the one the enrolment used is taken.
        await page.getByLabel('Authentication code').fill(totpCode(key, 1))
        await page.getByRole('button', { name: 'Verify' }).click()
      }),
    tokenFor(alice),
  )

  await step('signed out', () => signOut(page))
  await step(
    'signed in with the passkey alone',
    () => authorize(page, () => page.getByRole('button', { name: 'Sign in with a passkey' }).click()),
    tokenFor(alice),
  )

  const withRecoveryCode = async () => {
    await password(page, alice.email)
    await atVerify(page)
    await page.getByLabel('Recovery code').fill(codes[0]!)
    await page.getByRole('button', { name: 'Use a recovery code' }).click()
  }
  await step('signed out', () => signOut(page))
  await step(
    'signed in with the password and a recovery code',
    () => authorize(page, withRecoveryCode),
    tokenFor(alice),
  )

  await step('signed out', () => signOut(page))
  await step(
    'the same recovery code refused the second time',
    async () => {
      await page.goto(`${base}/account`)
      await withRecoveryCode()
      const alert = (await page.getByRole('alert').textContent())?.trim() ?? ''
      if (!alert.includes('That recovery code is not right, or was used already.'))
        throw new Error(`the alert says "${alert}"`)
      if ((await page.getByLabel('Recovery code').getAttribute('aria-describedby')) === null)
        throw new Error('the alert is not tied to the field')
      return alert
    },
    (alert) => `"${alert}"`,
  )

  const admin = await newPage()
  await step(
    'the admin of Globex (second factor required) led to enrol before consenting',
    () =>
      authorize(admin.page, async () => {
        await password(admin.page, bob.email)
        await admin.page.getByRole('alert').getByText('Your organization requires a second factor').waitFor()
        if (new URL(admin.page.url()).pathname !== '/account')
          throw new Error(`the policy's alert is on ${admin.page.url()}`)
        await enrolTotp(admin.page)
        await admin.page.getByRole('link', { name: 'Continue' }).click()
      }),
    tokenFor(bob),
  )

  await step('SIGTERM: a clean exit', async () => {
    serving.kill('SIGTERM')
    const code = await serving.exited
    if (code !== 0) throw new Error(`api-server exited ${code}`)
  })
} catch (error) {
  failed = true
  console.error(
    `FAIL  ${error instanceof StepFailed ? error.message : error instanceof Error ? error.stack : error}`,
  )
} finally {
  for (const cleanup of cleanups.reverse()) await Promise.resolve(cleanup()).catch(() => {})
  rmSync(dir, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)
