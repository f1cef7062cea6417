import type { AnyElysia } from 'elysia'
import { htmlPage, mountAssets } from '../http/embedded-pages.ts'
import { VERSIONS } from '../versions/versions.ts'

/**
 * `/docs`: Swagger UI rendering the generated OpenAPI documents, a switch between the versions
 * (current first). Every asset is embedded in the binary and served from /docs/assets, so the
 * page loads nothing from elsewhere, and its CSP allows scripts and styles from this origin only
 * (no inline script: the start-up code is a file of its own). Swagger UI's files load on the
 * first request for one of them: held from start-up they cost the process about 30 MiB of memory
 * (docs/performance.md, "Memory").
 */
const INIT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    urls: ${JSON.stringify(
      [...VERSIONS]
        .sort((a, b) => (a.status === 'current' ? -1 : b.status === 'current' ? 1 : 0))
        .map((v) => ({ url: `${v.prefix}/openapi.json`, name: `${v.name} (${v.status})` })),
    )},
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    validatorUrl: null,
    tryItOutEnabled: false,
  })
})
`

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>api-service: API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`

// Swagger UI sets style attributes and uses data: images in its stylesheet; it fetches the
// documents (and, with "try it out", the API) from this origin only.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export function mountDocs(app: AnyElysia): void {
  app.get('/docs', () => htmlPage(PAGE, CSP))
  mountAssets(app, '/docs/assets', () =>
    import('./docs-assets.ts').then(({ SWAGGER_UI }) => ({
      ...SWAGGER_UI,
      'init.js': { body: INIT, type: 'text/javascript; charset=utf-8' },
    })),
  )
}
