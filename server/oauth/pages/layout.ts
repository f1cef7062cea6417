import { sha256Base64 } from '../../../shared/crypto.ts'
import { Html, html } from './html.ts'

// The only style, inline and allowed by its hash: the pages load nothing from anywhere.
const CSS = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; padding: 2rem 1rem; background: Canvas; color: CanvasText; }
main { max-width: 26rem; margin: 0 auto; padding: 1.5rem 2rem; border: 1px solid GrayText; border-radius: 8px; }
h1 { font-size: 1.4rem; margin-top: 0; }
label, legend { display: block; font-weight: 600; margin-top: 1rem; }
input[type=email], input[type=password], input[type=text] { display: block; box-sizing: border-box; width: 100%; font: inherit; padding: .5rem; margin-top: .25rem; }
.code { font-family: ui-monospace, monospace; font-size: 1.4rem; letter-spacing: .1em; text-transform: uppercase; }
.choice { display: flex; gap: .5rem; align-items: center; font-weight: normal; margin-top: .5rem; }
.actions { display: flex; gap: .75rem; margin-top: 1.5rem; }
button { font: inherit; padding: .5rem 1.25rem; border-radius: 6px; border: 1px solid ButtonText; cursor: pointer; }
button.primary { background: #1f5fbf; color: #fff; border-color: #1f5fbf; }
button.link { border: none; background: none; color: LinkText; text-decoration: underline; padding: 0; margin-top: 1rem; }
:focus-visible { outline: 3px solid #f5a700; outline-offset: 2px; }
.error { border-left: 4px solid #c62828; padding: .5rem .75rem; background: color-mix(in srgb, #c62828 12%, Canvas); }
.hint, .small { font-size: .9rem; color: color-mix(in srgb, CanvasText 72%, Canvas); }
ul.scopes { padding-left: 1.25rem; }
`
const CSS_HASH = `'sha256-${sha256Base64(CSS)}'`

interface PageOptions {
  title: string
  body: Html
  status?: number
  /** Where the page's forms may send the browser, beyond this origin (the client's redirect URI). */
  formTargets?: string[]
  cookies?: string[]
  headers?: Record<string, string>
  /** Scripts of this origin the page loads (the passkey script); their page's CSP gets `script-src 'self'`. */
  scripts?: string[]
}

/**
 * Headers every page and page redirect carries: never cached, never framed (clickjacking, RFC
 * 9700 §4.16), never leaking its URL in a Referer.
 */
function pageHeaders(): Headers {
  return new Headers({
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  })
}

/**
 * An HTML page. CSP: nothing loads but the inline style, the empty icon (a `data:` URI, so the
 * browser does not ask for /favicon.ico) and the scripts of this origin a page names (the
 * passkey script; other pages run none); forms post to this origin, and may be
 * redirected on to the client's redirect URI (Chromium applies `form-action` to the redirects
 * that follow a form submission, so that origin is listed on the consent page).
 */
export function pageResponse(options: PageOptions): Response {
  const headers = pageHeaders()
  headers.set('Content-Type', 'text/html; charset=utf-8')
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ')
  const scripts = options.scripts ?? []
  // Only a page that loads a script may run one, and only files of this origin: never inline.
  const scriptSource = scripts.length > 0 ? ` script-src 'self';` : ''
  headers.set(
    'Content-Security-Policy',
    `default-src 'none';${scriptSource} style-src ${CSS_HASH}; img-src data:; base-uri 'none'; form-action ${formAction}; frame-ancestors 'none'`,
  )
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value)
  for (const cookie of options.cookies ?? []) headers.append('Set-Cookie', cookie)
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${options.title} · api-service</title>
<link rel="icon" href="data:,">
<style>${new Html(CSS)}</style>
${scripts.map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body>
<main>
${options.body}
</main>
</body>
</html>
`
  return new Response(document.value, { status: options.status ?? 200, headers })
}

/** 303 See Other (the POST/redirect/GET answer to every form). */
export function seeOther(location: string, cookies: string[] = []): Response {
  const headers = pageHeaders()
  headers.set('Location', location)
  for (const cookie of cookies) headers.append('Set-Cookie', cookie)
  return new Response(null, { status: 303, headers })
}
