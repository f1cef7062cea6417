/**
 * The outside identity providers file (`serve --idp FILE`/`API_IDP`, docs/oauth.md "Outside
 * identity providers"): JSON, or YAML when its name ends in `.yaml`/`.yml`, checked completely
 * before anything starts. Every problem is one line naming its place (`providers.corp.issuer: ...`);
 * no line ever repeats a value from the file, so a client secret is never printed.
 */
import { readFileSync } from 'node:fs'
import { type Static, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { jsonErrorAt } from '../../shared/schema/json-position.ts'

const PROVIDER_TYPES = ['github', 'google', 'microsoft', 'oidc'] as const
const ROLES = ['admin', 'member', 'viewer'] as const

// Paths under /login/ that other sign-in steps own (the second factor, passkeys).
const RESERVED_KEYS = new Set(['verify', 'passkey', 'passkeys', 'totp', 'recovery'])

const Text = Type.String({ minLength: 1, maxLength: 2000 })
const Entry = Type.Object(
  {
    type: Type.Union(PROVIDER_TYPES.map((t) => Type.Literal(t))),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    clientId: Text,
    clientSecret: Text,
    issuer: Type.Optional(Text),
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9.-]+$' })),
    createUsers: Type.Optional(
      Type.Object(
        { org: Text, role: Type.Union(ROLES.map((r) => Type.Literal(r))) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)
const File = Type.Object(
  { providers: Type.Record(Type.String(), Type.Unknown()), $schema: Type.Optional(Type.String()) },
  { additionalProperties: false },
)

/** One provider as the file declares it, under its key (`corp` for `/login/corp`). */
export interface IdpProvider extends Static<typeof Entry> {
  key: string
}

/** The providers in the order the file declares them (the login page's order). */
export interface IdpConfig {
  providers: IdpProvider[]
}

/** A providers file with problems: each is a line on standard error, and the command exits 2. */
export class IdpFileError extends Error {
  override name = 'IdpFileError'
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}`)
  }
}

/** `/providers/corp/issuer` as `providers.corp.issuer`; the file itself as `(the file)`. */
const placeOf = (path: string) => path.split('/').filter(Boolean).join('.') || '(the file)'

function shapeProblems(schema: typeof Entry | typeof File, value: unknown, at: string): string[] {
  const seen = new Map<string, string>()
  for (const error of Value.Errors(schema, value)) {
    const place = placeOf(at + error.path)
    // TypeBox's messages name the expectation, never the value met; a choice names its options.
    const choices = place.endsWith('.type') ? PROVIDER_TYPES : place.endsWith('.role') ? ROLES : null
    const message = choices ? `must be one of ${choices.join(', ')}` : error.message.toLowerCase()
    if (!seen.has(place)) seen.set(place, `${place}: ${message}`)
  }
  return [...seen.values()]
}

/** An issuer is https, or http on a loopback host (a provider run for development or tests). */
function issuerProblem(issuer: string): string | null {
  let url: URL
  try {
    url = new URL(issuer)
  } catch {
    return 'must be an absolute URL'
  }
  if (url.search || url.hash) return 'must have no query or fragment'
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return 'must be an https URL (http only on a loopback host)'
  return null
}

/** The problems of one entry beyond its shape: what its type needs and forbids. */
function entryProblems(key: string, entry: Static<typeof Entry>): string[] {
  const at = `providers.${key}`
  const problems: string[] = []
  if (entry.type === 'oidc') {
    if (entry.issuer === undefined) problems.push(`${at}.issuer: required for type oidc`)
    else {
      const problem = issuerProblem(entry.issuer)
      if (problem) problems.push(`${at}.issuer: ${problem}`)
    }
  } else if (entry.issuer !== undefined) problems.push(`${at}.issuer: only type oidc takes an issuer`)
  if (entry.type === 'microsoft' && entry.tenant === undefined)
    problems.push(`${at}.tenant: required for type microsoft (a tenant id, or common, organizations)`)
  if (entry.type !== 'microsoft' && entry.tenant !== undefined)
    problems.push(`${at}.tenant: only type microsoft takes a tenant`)
  return problems
}

/** The providers of a parsed file, or every problem found in it. */
export function parseIdpConfig(value: unknown): { config: IdpConfig } | { problems: string[] } {
  const problems = shapeProblems(File, value, '')
  if (problems.length > 0) return { problems }
  const providers: IdpProvider[] = []
  for (const [key, entry] of Object.entries((value as { providers: Record<string, unknown> }).providers)) {
    if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(key))
      problems.push(`providers.${key}: a key is 1-40 lowercase letters, digits and -, not starting with -`)
    else if (RESERVED_KEYS.has(key))
      problems.push(`providers.${key}: /login/${key} is taken; choose another key`)
    const found = shapeProblems(Entry, entry, `/providers/${key}`)
    if (found.length > 0) {
      problems.push(...found)
      continue
    }
    const checked = entry as Static<typeof Entry>
    problems.push(...entryProblems(key, checked))
    providers.push({ key, ...checked })
  }
  if (providers.length === 0 && problems.length === 0)
    problems.push('providers: declare at least one provider')
  return problems.length > 0 ? { problems } : { config: { providers } }
}

/** The text of a providers file, parsed as JSON or YAML by its name, then checked. */
export function parseIdpText(text: string, yaml: boolean): { config: IdpConfig } | { problems: string[] } {
  let value: unknown
  try {
    value = yaml ? Bun.YAML.parse(text) : JSON.parse(text)
  } catch {
    // The parser's own message may quote the text it met, which may be a secret: only where.
    const at = yaml ? undefined : jsonErrorAt(text)
    const where = at ? ` at line ${at.line}, column ${at.column}` : ''
    return { problems: [`(the file): not valid ${yaml ? 'YAML' : 'JSON'}${where}`] }
  }
  return parseIdpConfig(value)
}

/** The providers file at `path`, checked completely; throws an IdpFileError listing every problem. */
export function readIdpFile(path: string): IdpConfig {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as { code?: string }).code
    throw new IdpFileError(path, [`(the file): cannot be read${code ? ` (${code})` : ''}`])
  }
  const result = parseIdpText(text, /\.ya?ml$/i.test(path))
  if ('problems' in result) throw new IdpFileError(path, result.problems)
  return result.config
}
