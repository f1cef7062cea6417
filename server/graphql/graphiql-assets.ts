import {
  css,
  editorWorkerService,
  favicon,
  graphqlWorker,
  js,
  jsonWorker,
} from '@graphql-yoga/render-graphiql/graphiql'

const JS = 'text/javascript; charset=utf-8'

/**
 * Yoga's GraphiQL (@graphql-yoga/render-graphiql, the build that carries its files instead of
 * naming a CDN), embedded in the binary; `/graphql` loads this module on its first asset request.
 * The editor's workers are files of their own, so the page's CSP allows workers from this origin
 * only.
 */
export const GRAPHIQL: Record<string, { body: string | Uint8Array<ArrayBuffer>; type: string }> = {
  'graphiql.js': { body: js, type: JS },
  'graphiql.css': { body: css, type: 'text/css; charset=utf-8' },
  'editor.worker.js': { body: editorWorkerService, type: JS },
  'json.worker.js': { body: jsonWorker, type: JS },
  'graphql.worker.js': { body: graphqlWorker, type: JS },
  // The package has its icon as a data: URL; served as the file it is.
  'favicon.ico': {
    body: Buffer.from(favicon.slice(favicon.indexOf(',') + 1), 'base64'),
    type: 'image/x-icon',
  },
}
