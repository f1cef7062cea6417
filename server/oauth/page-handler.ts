import type { OAuthContext } from './context.ts'
import { OAuthError } from './errors.ts'
import { failurePage, messagePage } from './interaction.ts'

type Handler = (ctx: OAuthContext, request: Request) => Promise<Response>

/** A page answering GET (and HEAD) and POST, with the error pages every OAuth page shows. */
export function pageHandler(show: Handler, submit: Handler): Handler {
  return async (ctx, request) => {
    try {
      if (request.method === 'GET' || request.method === 'HEAD') return await show(ctx, request)
      if (request.method === 'POST') return await submit(ctx, request)
      const response = messagePage(405, 'Method not allowed', 'This page answers GET and POST only.')
      response.headers.set('Allow', 'GET, HEAD, POST')
      return response
    } catch (error) {
      if (error instanceof OAuthError)
        return messagePage(400, 'This request cannot be completed', error.description)
      return failurePage(ctx, error)
    }
  }
}

/** What the account pages advise after a refused form: their forms are the site's own. */
export const RELOAD_ADVICE = 'Reload the page and try again.'

/**
 * The page for a form whose CSRF check failed (another site's, or too old); `advice` says what to
 * do (the OAuth pages send the person back to the application, the account pages to a reload).
 */
export const forbiddenForm = (advice = 'Go back to the application and start again.') =>
  messagePage(
    403,
    'This form cannot be accepted',
    `The form did not come from this site, or it is too old. ${advice}`,
    'Cookies must be enabled for this site.',
  )
