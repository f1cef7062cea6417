import type { AnyElysia } from 'elysia'
import { notAcceptable } from '../../shared/errors.ts'
import { htmlPage, mountAssets } from '../http/embedded-pages.ts'
import { errorResponse } from '../http/responses.ts'
import { GRAPHQL_PATH } from './names.ts'

const ASSETS = `${GRAPHQL_PATH}/assets`

/** What a browser navigating to `/graphql` sends (Yoga's own test): a GET that takes HTML. */
export function wantsGraphiQL(request: Request): boolean {
  return request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html')
}

const DEFAULT_QUERY = `# Reading records needs an access token: add it
# under Headers below (docs/graphql.md) as
# {"Authorization": "Bearer <token>"}
# Run with Ctrl-Enter.
{
  __typename
}
`

// Monaco finds its workers through MonacoEnvironment, which must exist before GraphiQL's bundle
// runs; GraphiQL starts once the bundle is loaded.
const INIT = `self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: function (moduleId, label) {
    var file = { json: 'json.worker.js', graphql: 'graphql.worker.js' }[label] || 'editor.worker.js'
    return '${ASSETS}/' + file
  },
}
window.addEventListener('load', function () {
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), ${JSON.stringify({
    endpoint: GRAPHQL_PATH,
    title: 'api-service: GraphiQL',
    defaultQuery: DEFAULT_QUERY,
  })})
})
`

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>api-service: GraphiQL</title>
<link rel="icon" href="${ASSETS}/favicon.ico">
<link rel="stylesheet" href="${ASSETS}/graphiql.css">
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript.</noscript>
<div id="root"></div>
<script src="${ASSETS}/init.js"></script>
<script src="${ASSETS}/graphiql.js"></script>
</body>
</html>
`

// Every file comes from this origin, the workers included; GraphiQL and its editor set style
// attributes and inject style elements, and the editor's icons are data: fonts and images.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * `/graphql` in a browser: GraphiQL, all of it served from `/graphql/assets` (no CDN, no other
 * host). Not with `--production` (no development pages, as no introspection): there the page
 * is the contract's 406, the answer an endpoint gives to a GET it has no HTML for.
 */
export function graphiqlPage(production: boolean): Response {
  if (production)
    return errorResponse(
      notAcceptable(
        'This server runs with --production: /graphql answers GraphQL requests only, as application/graphql-response+json or application/json.',
      ),
    )
  return htmlPage(PAGE, CSP)
}

/** GraphiQL's files under `/graphql/assets` (9 MB, loaded on first use); none with `--production`. */
export function mountGraphiQLAssets(app: AnyElysia): void {
  mountAssets(app, ASSETS, () =>
    import('./graphiql-assets.ts').then(({ GRAPHIQL }) => ({
      ...GRAPHIQL,
      'init.js': { body: INIT, type: 'text/javascript; charset=utf-8' },
    })),
  )
}
