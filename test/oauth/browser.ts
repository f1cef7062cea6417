import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core'

/** Debian's Chromium (`apt-get install chromium`); .ci/run installs it. */
export const CHROMIUM = '/usr/bin/chromium'

/**
 * Whether the browser tests run. Without Chromium they are skipped with a message on a
 * developer's machine, but fail in CI (CI=true), where .ci/run installs it.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing in CI: .ci/run must install Debian's chromium`)
  console.warn(`skipping the browser tests: ${CHROMIUM} is not installed (apt-get install -y chromium)`)
  return false
}

/** Runs `use` in a headless Chromium with a fresh profile directory, closed afterwards. */
export async function withBrowser<T>(
  use: (context: BrowserContext) => Promise<T>,
  options: BrowserContextOptions = {},
): Promise<T> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    ...options,
  })
  try {
    return await use(context)
  } finally {
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  }
}

/** A loopback server standing in for a client: records the redirects it gets, and serves pages of another site. */
export function startClientSite(pages: Record<string, string> = {}) {
  const received: URL[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url)
      const page = pages[url.pathname]
      if (page) return new Response(page, { headers: { 'Content-Type': 'text/html' } })
      received.push(url)
      return new Response('<!doctype html><title>Back at the app</title><h1>Back at the app</h1>', {
        headers: { 'Content-Type': 'text/html' },
      })
    },
  })
  return { origin: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) }
}

/**
 * Scrolls the page down until `selector` is on it. The API reference virtualizes its operations
 * once a document has 150 of them: only those near the viewport are rendered, as a reader sees them.
 */
export async function scrollUntilShown(page: Page, selector: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  const target = page.locator(selector).first()
  while (!(await target.isVisible())) {
    if (Date.now() > deadline) throw new Error(`${selector} is not on the page after scrolling`)
    await page.mouse.wheel(0, 600)
    await Bun.sleep(50)
  }
}
