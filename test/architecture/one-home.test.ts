import { describe, expect, it } from 'bun:test'
import { Glob } from 'bun'

/**
 * SHA-256, HMAC and constant-time comparison have one home, shared/crypto.ts, on one library
 * (tests may hash with another: there it is the independent reference). A cast that silences the
 * compiler (`as never`, `as unknown as`) says why, on its line or the line above.
 */

const ROOT = `${import.meta.dir}/../..`
const CRYPTO_HOME = 'shared/crypto.ts'
// The console runs in a browser, which has WebCrypto and no node:crypto: its PKCE challenge is
// its one SHA-256.
const BROWSER_CRYPTO_HOME = 'server/console/app/pkce.ts'
// Passkeys verify ECDSA P-256 and RSA PKCS#1 v1.5 signatures (WebAuthn §7.2), which nothing else
// does: that file may take oslo's ECDSA and RSA, and only those (its SHA-256 is still shared/crypto.ts's).
const SIGNATURE_HOME = 'server/passkeys/public-key.ts'
const SIGNATURES = /from '@oslojs\/crypto\/(ecdsa|rsa)'/
const HASHING =
  /\b(createHash|createHmac|timingSafeEqual|CryptoHasher)\b|\bBun\.(sha|SHA\d+)\b|crypto\.subtle|@oslojs\/crypto/
const BLUNT_CAST = /\bas (never|unknown as)\b/

async function sources(): Promise<string[]> {
  const files: string[] = []
  for (const folder of ['server', 'shared', 'cli'])
    for await (const path of new Glob(`${folder}/**/*.{ts,tsx}`).scan(ROOT)) files.push(path)
  return files.sort()
}

/** `path:line: text` of every line of the sources that matches `pattern` and is not excused. */
async function offending(
  pattern: RegExp,
  excused: (path: string, lines: string[], i: number) => boolean,
): Promise<string[]> {
  const found: string[] = []
  for (const path of await sources()) {
    const lines = (await Bun.file(`${ROOT}/${path}`).text()).split('\n')
    lines.forEach((line, i) => {
      if (pattern.test(line) && !excused(path, lines, i)) found.push(`${path}:${i + 1}: ${line.trim()}`)
    })
  }
  return found
}

const hasComment = (line: string | undefined) => line !== undefined && /(^|\s)(\/\/|\/\*)|^\s*\*/.test(line)

describe('one home', () => {
  it('finds the sources it checks', async () => {
    const files = await sources()
    expect(files).toContain(CRYPTO_HOME)
    expect(files).toContain('cli/main.ts')
    expect(files.length).toBeGreaterThan(150)
  })

  it('hashes, signs and compares secrets only in shared/crypto.ts', async () => {
    const home = (path: string, lines: string[], i: number) =>
      path === CRYPTO_HOME ||
      path === BROWSER_CRYPTO_HOME ||
      (path === SIGNATURE_HOME && SIGNATURES.test(lines[i]!))
    expect(await offending(HASHING, home)).toEqual([])
    expect(await Bun.file(`${ROOT}/${CRYPTO_HOME}`).text()).toMatch(/from 'node:crypto'/)
  })

  it('gives every as-never and as-unknown-as cast its reason on the line or the line above', async () => {
    const lines = await offending(BLUNT_CAST, (_, all, i) => hasComment(all[i]) || hasComment(all[i - 1]))
    expect(lines).toEqual([])
  })

  it('recognises what it forbids', () => {
    for (const line of [
      "import { createHash } from 'node:crypto'",
      "createHmac('sha256', key).update(body).digest('base64url')",
      "new Bun.CryptoHasher('sha256').update(text).digest('hex')",
      "import { sha256 } from '@oslojs/crypto/sha2'",
      "await crypto.subtle.digest('SHA-256', bytes)",
      'Bun.SHA256.hash(text)',
      'a.length === b.length && timingSafeEqual(a, b)',
    ])
      expect(HASHING.test(line)).toBe(true)
    for (const line of [
      "import { randomBytes } from 'node:crypto'",
      'Bun.hash.xxHash64(body)',
      '// SHA-256 of the body',
    ])
      expect(HASHING.test(line)).toBe(false)
    for (const line of ['inner.open(ws as never)', 'tx as unknown as SQL'])
      expect(BLUNT_CAST.test(line)).toBe(true)
    expect(BLUNT_CAST.test('value as unknown[]')).toBe(false)
    expect(hasComment('  // graphql-ws hands back our arguments')).toBe(true)
    expect(hasComment('  const x = y as never')).toBe(false)
    expect(hasComment("  const url = 'http://example.com' as never")).toBe(false)
    expect(hasComment('  const area = width * height as never')).toBe(false)
  })
})
