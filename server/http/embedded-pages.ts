import type { AnyElysia } from 'elysia'
import { notFound } from '../../shared/errors.ts'

/** A file of a page's, embedded in the binary. */
interface Asset {
  body: string | Uint8Array<ArrayBuffer>
  type: string
}

/**
 * An HTML page of the service's own (`/docs`, GraphiQL): its `csp` names what it may load, which
 * is this origin only; no other site may frame it.
 */
export function htmlPage(html: string, csp: string): Response {
  return new Response(html, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': csp,
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cache-Control': 'no-cache',
    },
  })
}

/**
 * Serves a page's files under `prefix/:name`. They are loaded (`load`, a dynamic import of the
 * module that embeds them) on the first request for one: held from start-up, they would cost every
 * server their memory, though most are never asked for them (docs/performance.md, "Memory").
 */
export function mountAssets(
  app: AnyElysia,
  prefix: string,
  load: () => Promise<Record<string, Asset>>,
): void {
  let assets: Promise<Record<string, Asset>> | undefined
  app.get(`${prefix}/:name`, async ({ params }) => {
    assets ??= load()
    const all = await assets
    const asset = Object.hasOwn(all, params.name) ? all[params.name] : undefined
    if (!asset) throw notFound('No such asset.')
    return new Response(asset.body, {
      headers: { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=3600' },
    })
  })
}
