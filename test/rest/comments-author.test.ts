import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { codeFlow, discover, orgWithUsers } from '../oauth/support.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'
import { createPost, readJson } from './fixtures.ts'

let server: TestServer
let acme: Tenant

beforeAll(async () => {
  server = await startTestServer()
  acme = await server.tenant()
})
afterAll(() => server.stop())

const comment = (token: string, postId: string, json: unknown, version = 'v1') =>
  server.fetch(`/api/${version}/posts/${postId}/comments`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(json),
  })

describe('POST /api/{version}/posts/{id}/comments with text alone (contract: authorId is optional)', () => {
  it('makes the user the token was issued for the author', async () => {
    const org = await orgWithUsers(server, 'Authors')
    const cli = await discover(server, CLI_CLIENT_ID)
    const member = await codeFlow(server, cli, 'http://127.0.0.1:5000/callback', org.member.email)
    const post = await readJson(
      await server.fetch('/api/v1/posts', {
        method: 'POST',
        headers: { Authorization: `Bearer ${member.access_token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ authorId: org.admin.id, title: 'Hello' }),
      }),
    )
    for (const version of ['v1', 'v2']) {
      const response = await comment(member.access_token, post.id, { text: 'First!' }, version)
      expect(response.status).toBe(201)
      const created = await readJson(response)
      expect(created).toMatchObject({ text: 'First!', authorId: org.member.id, postId: post.id })
    }
  })

  it('leaves the author null for a client-credentials token', async () => {
    const post = await createPost(acme)
    const response = await comment(acme.token, post.id, { text: 'From a service' })
    expect(response.status).toBe(201)
    expect(await readJson(response)).toMatchObject({ text: 'From a service', authorId: null })
  })

  it('keeps an author the request names, and an explicit null', async () => {
    const post = await createPost(acme)
    const named = await readJson(await comment(acme.token, post.id, { text: 'a', authorId: post.authorId }))
    expect(named.authorId).toBe(post.authorId)
    const none = await readJson(await comment(acme.token, post.id, { text: 'b', authorId: null }))
    expect(none.authorId).toBeNull()
  })

  it('still refuses an author of another organization with 422 naming authorId', async () => {
    const other = await server.tenant()
    const stranger = await createPost(other)
    const post = await createPost(acme)
    const response = await comment(acme.token, post.id, { text: 'c', authorId: stranger.authorId })
    expect(response.status).toBe(422)
    const body = (await response.json()) as { error: { details: { field: string }[] } }
    expect(body.error.details.map((d) => d.field)).toEqual(['authorId'])
  })
})
