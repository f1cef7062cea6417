import css from 'swagger-ui-dist/swagger-ui.css' with { type: 'text' }
import bundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'text' }
import preset from 'swagger-ui-dist/swagger-ui-standalone-preset.js' with { type: 'text' }

/** Swagger UI's files, embedded in the binary; `/docs` loads this module on its first asset request. */
export const SWAGGER_UI: Record<string, { body: string; type: string }> = {
  'swagger-ui-bundle.js': { body: bundle, type: 'text/javascript; charset=utf-8' },
  'swagger-ui-standalone-preset.js': { body: preset, type: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { body: css, type: 'text/css; charset=utf-8' },
}
