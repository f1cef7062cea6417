import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { parseIdpConfig, parseIdpText } from '../../server/idp/config.ts'

const SECRET = 'file-secret-never-printed-42'
const corp = { type: 'oidc', issuer: 'https://sso.corp.example', clientId: 'c', clientSecret: SECRET }
const problemsOf = (value: unknown) => {
  const result = parseIdpConfig(value)
  return 'problems' in result ? result.problems : []
}

describe('the --idp file', () => {
  it('takes every type, in the order declared', () => {
    const result = parseIdpConfig({
      providers: {
        corp: { ...corp, name: 'Corp SSO', createUsers: { org: 'Acme', role: 'viewer' } },
        github: { type: 'github', clientId: 'g', clientSecret: SECRET },
        google: { type: 'google', clientId: 'g', clientSecret: SECRET },
        ms: { type: 'microsoft', tenant: 'common', clientId: 'm', clientSecret: SECRET },
      },
    })
    expect('config' in result && result.config.providers.map((p) => p.key)).toEqual([
      'corp',
      'github',
      'google',
      'ms',
    ])
  })

  it.each([
    ['no providers member', {}, 'providers: expected required property'],
    ['an unknown top-level member', { providers: { corp }, extra: 1 }, 'extra: unexpected property'],
    [
      'an unknown type',
      { providers: { corp: { ...corp, type: 'saml' } } },
      'providers.corp.type: must be one of github, google, microsoft, oidc',
    ],
    [
      'oidc without issuer',
      { providers: { corp: { ...corp, issuer: undefined } } },
      'providers.corp.issuer: required for type oidc',
    ],
    [
      'an http issuer elsewhere than loopback',
      { providers: { corp: { ...corp, issuer: 'http://sso.example' } } },
      'providers.corp.issuer: must be an https URL',
    ],
    [
      'an issuer on github',
      {
        providers: {
          gh: { type: 'github', clientId: 'a', clientSecret: SECRET, issuer: 'https://x.example' },
        },
      },
      'providers.gh.issuer: only type oidc',
    ],
    [
      'microsoft without tenant',
      { providers: { ms: { type: 'microsoft', clientId: 'a', clientSecret: SECRET } } },
      'providers.ms.tenant: required for type microsoft',
    ],
    [
      'no client secret',
      { providers: { corp: { ...corp, clientSecret: undefined } } },
      'providers.corp.clientSecret:',
    ],
    [
      'an unknown member of an entry',
      { providers: { corp: { ...corp, secret: SECRET } } },
      'providers.corp.secret: unexpected property',
    ],
    ['an uppercase key', { providers: { Corp: corp } }, 'providers.Corp: a key is 1-40 lowercase'],
    [
      'a key taken by another step',
      { providers: { verify: corp } },
      'providers.verify: /login/verify is taken',
    ],
    [
      'a bad createUsers role',
      { providers: { corp: { ...corp, createUsers: { org: 'Acme', role: 'owner' } } } },
      'providers.corp.createUsers.role: must be one of admin, member, viewer',
    ],
    ['no provider at all', { providers: {} }, 'providers: declare at least one provider'],
  ])('refuses %s, naming the place', (_name, value, expected) => {
    const problems = problemsOf(value)
    expect(problems.some((p) => p.startsWith(expected) || p.includes(expected))).toBe(true)
    expect(problems.join('\n')).not.toContain(SECRET)
  })

  it('names where JSON breaks without quoting the text (it may be a secret)', () => {
    const result = parseIdpText(`{"providers": {"corp": {"clientSecret": ${SECRET}}}}`, false)
    expect('problems' in result && result.problems).toEqual([
      '(the file): not valid JSON at line 1, column 41',
    ])
  })

  it('never repeats a value of the file in a problem, whatever the file holds', () => {
    const marker = fc.stringMatching(/^[A-Za-z0-9]{12,20}$/).map((s) => `zz${s}`)
    fc.assert(
      fc.property(marker, fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 2 }), (secret, a, b) => {
        const file = { providers: { corp: { ...corp, clientSecret: secret, issuer: a, tenant: b }, x: a } }
        for (const problem of problemsOf(file)) {
          expect(problem).not.toContain(secret)
          expect(problem).toMatch(/^(\(the file\)|providers)[^\n]*: /)
        }
      }),
      { seed: 29, numRuns: 300 },
    )
  })
})

describe('api-server serve --idp', () => {
  const dir = mkdtempSync(join(tmpdir(), 'idp-file-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const run = (file: string, content: string) => {
    writeFileSync(join(dir, file), content)
    return Bun.spawnSync(
      [
        process.execPath,
        'server/main.ts',
        'serve',
        '--db',
        ':memory:',
        '--port',
        '0',
        '--idp',
        join(dir, file),
      ],
      { stdout: 'pipe', stderr: 'pipe', timeout: 20_000 },
    )
  }

  it('stops before starting on a bad file: exit 2, one line per problem, no secret', () => {
    const result = run(
      'bad.yaml',
      `providers:\n  corp:\n    type: oidc\n    clientId: c\n    clientSecret: ${SECRET}\n  ms:\n    type: microsoft\n    clientId: m\n    clientSecret: ${SECRET}\n`,
    )
    const err = result.stderr.toString()
    expect(result.exitCode).toBe(2)
    expect(err.trim().split('\n')).toEqual([
      `${join(dir, 'bad.yaml')}: providers.corp.issuer: required for type oidc`,
      `${join(dir, 'bad.yaml')}: providers.ms.tenant: required for type microsoft (a tenant id, or common, organizations)`,
    ])
    expect(err + result.stdout.toString()).not.toContain(SECRET)
    expect(err).not.toContain('listening')
  })

  it('stops when createUsers names an organization that does not exist', () => {
    const result = run(
      'org.json',
      JSON.stringify({ providers: { corp: { ...corp, createUsers: { org: 'Nobody', role: 'viewer' } } } }),
    )
    expect(result.exitCode).toBe(2)
    expect(result.stderr.toString()).toContain('providers.corp.createUsers.org: no such organization')
    expect(result.stderr.toString()).not.toContain(SECRET)
  })
})
