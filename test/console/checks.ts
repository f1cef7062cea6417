/**
 * What the console's browser tests check on a page (axe's serious findings, the focused element's
 * outline), the window they look through (1280x800, light), the screenshots they leave in
 * docs/console/ under CONSOLE_SCREENSHOTS=1, and the API as an organization's own client, to set
 * up and check records beside the page.
 */
import { expect } from 'bun:test'
import { join } from 'node:path'
import AxeBuilder from '@axe-core/playwright'
import type { BrowserContextOptions, Page } from 'playwright-core'
import type { TestServer } from '../support/server.ts'
import { clientToken } from '../support/tokens.ts'

/** The window every console test looks through: the screenshots' size, the light theme. */
export const CONSOLE_WINDOW: BrowserContextOptions = {
  viewport: { width: 1280, height: 800 },
  colorScheme: 'light',
}

/** Fails with each serious or critical axe violation's id and the elements it found it on. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze()
  const serious = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${what}: ${v.id} (${v.impact}) on ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  expect(serious).toEqual([])
}

const SHOTS = join(import.meta.dir, '../../docs/console')

/** Under CONSOLE_SCREENSHOTS=1 (npm run console:screenshots), writes docs/console/{name}.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.CONSOLE_SCREENSHOTS !== '1') return
  // Nothing blinking or half-drawn: the caret and the transitions would differ from run to run.
  await page.evaluate(() => document.fonts.ready)
  await page.screenshot({ path: join(SHOTS, `${name}.png`), animations: 'disabled', caret: 'hide' })
}

/** The focused element's description and whether it shows it is focused (an outline or a ring). */
export function focusShown(page: Page): Promise<{ element: string; shown: boolean }> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null
    if (!element || element === document.body) return { element: 'body', shown: false }
    const style = getComputedStyle(element)
    const outlined = style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0
    const ringed = style.boxShadow !== 'none'
    const name = (element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40)
    return { element: `${element.tagName.toLowerCase()}#${element.id} "${name}"`, shown: outlined || ringed }
  })
}

export interface OrgApi {
  token: string
  fetch: (path: string, init?: { method?: string; json?: unknown; token?: string }) => Promise<Response>
  /** The answer's JSON, failing unless its status is `status`. */
  json: <T = Record<string, unknown>>(
    path: string,
    status: number,
    init?: { method?: string; json?: unknown },
  ) => Promise<T>
}

/** The API as a confidential client of the organization `orgName` (the demo's Acme), every scope. */
export async function orgApi(server: TestServer, orgName: string): Promise<OrgApi> {
  const org = await server.store.orgs.find(orgName)
  if (!org) throw new Error(`no organization ${orgName}`)
  const { client, secret } = await server.store.clients.create({
    name: 'console test setup',
    orgId: org.id,
    public: false,
  })
  const token = await clientToken(server.url, { id: client.id, secret: secret! })
  const send: OrgApi['fetch'] = (path, init = {}) =>
    server.fetch(path, {
      method: init.method ?? 'GET',
      headers: {
        Authorization: `Bearer ${init.token ?? token}`,
        ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    })
  return {
    token,
    fetch: send,
    json: async (path, status, init) => {
      const response = await send(path, init)
      const text = await response.text()
      if (response.status !== status)
        throw new Error(
          `${init?.method ?? 'GET'} ${path}: expected ${status}, got ${response.status} ${text}`,
        )
      return JSON.parse(text)
    },
  }
}
