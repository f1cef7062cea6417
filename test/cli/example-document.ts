/**
 * The OpenAPI document of the built-in example, as a server without a schema file publishes it,
 * for the stand-in servers of tests whose CLI commands learn the collections from it first.
 */
import { conditionalAnswer, representation } from '../../server/http/conditional.ts'
import { openApiDocument } from '../../server/openapi/document.ts'
import { VERSIONS } from '../../server/versions/versions.ts'
import { exampleSchema } from '../../shared/resources/index.ts'

const SCHEMA = exampleSchema()
const documents = new Map<string, ReturnType<typeof representation>>()

/** The example's document (with its ETag, or 304) when the request asks for it; undefined otherwise. */
export function exampleDocument(request: Request): Response | undefined {
  const url = new URL(request.url)
  const version = VERSIONS.find((v) => url.pathname === `${v.prefix}/openapi.json`)
  if (!version || request.method !== 'GET') return undefined
  const key = `${url.origin}${url.pathname}`
  let answer = documents.get(key)
  if (!answer) {
    answer = representation(
      openApiDocument({ schema: SCHEMA, version, baseUrl: url.origin }),
      new Date().toISOString(),
    )
    documents.set(key, answer)
  }
  return conditionalAnswer(request, answer)
}
