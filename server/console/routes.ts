import type { AnyElysia } from 'elysia'
import { notFound } from '../../shared/errors.ts'
import { errorResponse } from '../http/responses.ts'
import type { ConsoleAssets } from './assets.ts'

/**
 * What a console page may load: its own script and stylesheet from this origin, nothing inline,
 * nothing from another host; it talks to this origin only and no other site may frame it.
 */
const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

function strict(response: Response): Response {
  response.headers.set('Content-Security-Policy', CONSOLE_CSP)
  response.headers.set('X-Frame-Options', 'DENY')
  response.headers.set('Referrer-Policy', 'no-referrer')
  return response
}

// The empty data: icon keeps Chromium from asking for /favicon.ico (a 404 on every first load).
const shell = (assets: ConsoleAssets) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Console · api-service</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/${assets.style}">
<script type="module" src="/console/assets/${assets.script}"></script>
</head>
<body>
<div id="app"></div>
<noscript><p>The console needs JavaScript.</p></noscript>
</body>
</html>
`

/**
 * `/console`: the same HTML page at every path under it (the application routes by path) and its
 * files under /console/assets. They are bundled (from source) or unpacked (compiled) on the first
 * request, not at start: most servers are never asked (docs/performance.md, "Memory").
 */
export function mountConsole(app: AnyElysia, load: () => Promise<ConsoleAssets>): void {
  let assets: Promise<ConsoleAssets> | undefined
  const loaded = () => {
    assets ??= load().catch((error) => {
      assets = undefined
      throw error
    })
    return assets
  }
  const page = async () => {
    const html = shell(await loaded())
    return strict(
      new Response(html, {
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' },
      }),
    )
  }
  app.get('/console', page)
  app.get('/console/*', page)
  app.get('/console/assets/:name', async ({ params }) => {
    const { files } = await loaded()
    const file = Object.hasOwn(files, params.name) ? files[params.name] : undefined
    if (!file) return strict(errorResponse(notFound('No such asset.')))
    // The name carries the content's hash: a new build is a new name.
    return strict(
      new Response(file.body, {
        headers: { 'Content-Type': file.type, 'Cache-Control': 'public, max-age=31536000, immutable' },
      }),
    )
  })
}
