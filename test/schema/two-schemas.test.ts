import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { exampleSchema } from '../../shared/resources/index.ts'
import { createSchema } from '../../shared/schema/schema.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

/**
 * The resources served are handed to each server at start, not read from a module of their own:
 * one process serves two schemas side by side. The second is the example without posts and
 * comments (their tables still exist: storage is the example's for now).
 */

const full = exampleSchema()
const shop = createSchema(full.resources.filter((r) => r.name !== 'posts' && r.name !== 'comments'))

interface Served {
  server: TestServer
  tenant: Tenant
}
let withPosts: Served
let withoutPosts: Served

async function start(schema: typeof full): Promise<Served> {
  const server = await startTestServer({ schema })
  return { server, tenant: await server.tenant() }
}

beforeAll(async () => {
  ;[withPosts, withoutPosts] = await Promise.all([start(full), start(shop)])
})

afterAll(async () => {
  await Promise.all([withPosts?.server.stop(), withoutPosts?.server.stop()])
})

/** The same request to both servers at once. */
async function both<T>(ask: (served: Served) => Promise<T>): Promise<[T, T]> {
  const [a, b] = await Promise.all([ask(withPosts), ask(withoutPosts)])
  return [a, b]
}

describe('two servers in one process, each with its own schema', () => {
  it('serves /api/v2/posts on the first and answers 404 with the contract error body on the second', async () => {
    const [served, missing] = await both(({ tenant }) => tenant.fetch('/api/v2/posts'))
    expect(served.status).toBe(200)
    expect(((await served.json()) as { data: unknown[] }).data).toEqual([])
    expect(missing.status).toBe(404)
    const body = (await missing.json()) as { error: { code: string; message: string; details: unknown[] } }
    expect(body.error.code).toBe('NOT_FOUND')
    expect(typeof body.error.message).toBe('string')
    expect(body.error.details).toEqual([])
  })

  it('lists posts and comments in the first OpenAPI document only', async () => {
    const [first, second] = await both(async ({ server }) => {
      const response = await server.fetch('/api/v2/openapi.json')
      expect(response.status).toBe(200)
      return Object.keys(((await response.json()) as { paths: Record<string, unknown> }).paths)
    })
    expect(first).toContain('/api/v2/posts')
    expect(first).toContain('/api/v2/posts/{parentId}/comments')
    expect(second).toContain('/api/v2/orders')
    expect(second.filter((path) => /\/(posts|comments)\b/.test(path))).toEqual([])
  })

  it('has a posts query field in the first GraphQL schema only', async () => {
    const [first, second] = await both(async ({ tenant }) => {
      const response = await tenant.fetch('/graphql', {
        method: 'POST',
        json: { query: '{ __schema { queryType { fields { name } } } }' },
      })
      expect(response.status).toBe(200)
      const body = (await response.json()) as {
        data: { __schema: { queryType: { fields: { name: string }[] } } }
      }
      return body.data.__schema.queryType.fields.map((f) => f.name)
    })
    expect(first).toContain('posts')
    expect(first).toContain('orders')
    expect(second).toContain('orders')
    expect(second).not.toContain('posts')
    expect(second).not.toContain('comments')
  })

  it('offers read:posts in the first authorization server metadata only', async () => {
    const [first, second] = await both(async ({ server }) => {
      const response = await server.fetch('/.well-known/oauth-authorization-server')
      return ((await response.json()) as { scopes_supported: string[] }).scopes_supported
    })
    expect(first).toEqual([...full.scopes])
    expect(first).toContain('read:posts')
    expect(second).toEqual([...shop.scopes])
    expect(second).toContain('read:orders')
    expect(second).not.toContain('read:posts')
    expect(second).not.toContain('write:comments')
  })

  it('refuses read:posts at the second token endpoint as a scope it does not define', async () => {
    const [first, second] = await both(async ({ server, tenant }) => {
      const response = await server.fetch('/oauth/token', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${btoa(`${tenant.clientId}:${tenant.clientSecret}`)}`,
        },
        body: 'grant_type=client_credentials&scope=read:orders read:posts',
      })
      return response.status === 200 ? 'granted' : ((await response.json()) as { error: string }).error
    })
    expect(first).toBe('granted')
    expect(second).toBe('invalid_scope')
  })
})
