/**
 * A browser on `api-server serve --tls-cert --tls-key`: headless Chromium (Debian's package)
 * loads /docs over HTTPS, told to trust exactly the test certificate (by its public key's hash),
 * not to ignore certificate errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Browser, chromium } from 'playwright-core'
import { CHROMIUM, chromiumAvailable, scrollUntilShown } from '../oauth/browser.ts'
import { makeTestCertificates, type TestCertificates } from '../support/tls.ts'
import { type ServeProcess, startServe } from './run.ts'

const run = chromiumAvailable()
let certs: TestCertificates
let dir: string
let server: ServeProcess

beforeAll(async () => {
  if (!run) return
  certs = makeTestCertificates()
  dir = mkdtempSync(join(tmpdir(), 'api-tls-browser-'))
  server = await startServe([
    '--port',
    '0',
    '--db',
    join(dir, 'api.db'),
    '--tls-cert',
    certs.cert,
    '--tls-key',
    certs.key,
  ])
})
afterAll(async () => {
  if (!run) return
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
  rmSync(certs.dir, { recursive: true, force: true })
})

/** Headless Chromium, trusting the certificates whose SPKI hashes are given. */
function launch(trustedSpki: string[]): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(trustedSpki.length > 0 ? [`--ignore-certificate-errors-spki-list=${trustedSpki.join(',')}`] : []),
    ],
  })
}

describe.skipIf(!run)('/docs over HTTPS in Chromium', () => {
  it('renders the API reference over TLS, every request to the server over https', async () => {
    const browser = await launch([certs.spki])
    try {
      const page = await browser.newPage()
      const requested: string[] = []
      page.on('request', (request) => requested.push(request.url()))
      const response = await page.goto(`${server.url}/docs`)
      expect(response?.status()).toBe(200)
      expect(await response?.headerValue('strict-transport-security')).toBe('max-age=31536000')
      await page.locator('[data-path="/api/v2/users"]').first().waitFor({ timeout: 20_000 })
      await scrollUntilShown(page, '[data-path="/api/v2/orders"]')
      const security = await response?.securityDetails()
      expect(security?.protocol).toMatch(/^TLS 1\.[23]$/)
      expect(
        requested.filter((url) => !url.startsWith('data:')).every((url) => url.startsWith(server.url)),
      ).toBe(true)
    } finally {
      await browser.close()
    }
  }, 60_000)

  it('is refused by a Chromium that was not told to trust the certificate', async () => {
    const browser = await launch([])
    try {
      const page = await browser.newPage()
      const failure = await page.goto(`${server.url}/docs`).then(
        () => 'loaded',
        (error: Error) => error.message,
      )
      expect(failure).toContain('ERR_CERT_AUTHORITY_INVALID')
    } finally {
      await browser.close()
    }
  }, 30_000)
})
