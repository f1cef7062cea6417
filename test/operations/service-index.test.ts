import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { startTestServer, type TestServer } from '../support/server.ts'

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server.stop())

interface Index {
  name: string
  links: { openapi: Record<string, string>; [name: string]: string | Record<string, string> }
}

describe('GET /', () => {
  it('answers a JSON index without a token: docs, versions, OpenAPI documents, OAuth metadata', async () => {
    const response = await server.fetch('/')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    const index = (await response.json()) as Index
    expect(index).toEqual({
      name: 'api-service',
      links: {
        docs: '/docs',
        versions: '/api/versions',
        api: '/api/v2',
        openapi: { v1: '/api/v1/openapi.json', v2: '/api/v2/openapi.json' },
        graphql: '/graphql',
        oauthMetadata: '/.well-known/oauth-authorization-server',
        jwks: '/.well-known/jwks.json',
        health: '/healthz',
      },
    })
  })

  it('links only to paths that answer 200 without a token', async () => {
    const { links } = (await (await server.fetch('/')).json()) as Index
    const { openapi, graphql: _graphql, api: _api, ...pages } = links
    for (const path of [...Object.values(pages), ...Object.values(openapi)] as string[]) {
      expect([path, (await server.fetch(path)).status]).toEqual([path, 200])
    }
  })

  it('answers HEAD with the headers and no body, and carries the edge headers', async () => {
    const response = await server.fetch('/', { method: 'HEAD' })
    expect(response.status).toBe(200)
    expect(await response.text()).toBe('')
    expect(response.headers.get('x-request-id')).toBeTruthy()
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('is described in both OpenAPI documents, with the links it has', async () => {
    interface ObjectSchema {
      required: string[]
      properties: { links: { required: string[]; properties: Record<string, unknown> } }
    }
    const index = (await (await server.fetch('/')).json()) as Index
    for (const v of ['v1', 'v2']) {
      const doc = (await (await server.fetch(`/api/${v}/openapi.json`)).json()) as {
        paths: Record<
          string,
          { get: { responses: Record<string, { content: Record<string, { schema: ObjectSchema }> }> } }
        >
      }
      const schema = doc.paths['/']!.get.responses['200']!.content['application/json']!.schema
      expect(Object.keys(index)).toEqual(expect.arrayContaining(schema.required))
      expect(Object.keys(index.links)).toEqual(expect.arrayContaining(schema.properties.links.required))
      expect(Object.keys(schema.properties.links.properties).sort()).toEqual(Object.keys(index.links).sort())
    }
  })

  it('leaves other paths at the root 404', async () => {
    const response = await server.fetch('/nothing')
    expect(response.status).toBe(404)
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND')
  })
})
