// @ts-expect-error TypeScript types a .ts import as its module; Bun's `type: 'text'` gives the file's text.
import source from './browser/passkey.ts' with { type: 'text' }

/** Where the sign-in pages load their one script from (their CSP allows `script-src 'self'`). */
export const PASSKEY_SCRIPT_PATH = '/login/passkey.js'

// The source is carried as text (inside the compiled binary too) and its types stripped once, on
// the first request: Bun's transpiler is part of every Bun, compiled or not.
let compiled: string | undefined

/** GET /login/passkey.js: the browser half of passkeys (server/passkeys/browser/passkey.ts). */
export function passkeyScript(): Response {
  compiled ??= new Bun.Transpiler({ loader: 'ts', target: 'browser' }).transformSync(source as string)
  return new Response(compiled, {
    headers: {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=300',
    },
  })
}
