import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { codeFlow, discover, orgWithUsers } from '../oauth/support.ts'
import { expectError } from '../rest/fixtures.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/** A user's role grants access: only an admin (the scope delete:users) may set or change one. */
let server: TestServer
let org: Awaited<ReturnType<typeof orgWithUsers>>
let member: string
let admin: string

beforeAll(async () => {
  server = await startTestServer()
  org = await orgWithUsers(server, 'Escalation')
  const cli = await discover(server, CLI_CLIENT_ID)
  const login = async (email: string) =>
    (await codeFlow(server, cli, 'http://127.0.0.1:5000/callback', email)).access_token
  member = await login(org.member.email)
  admin = await login(org.admin.email)
})
afterAll(() => server.stop())

const send = (token: string, method: string, path: string, json?: unknown) =>
  server.fetch(path, {
    method,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
const roleOf = async (id: string) =>
  ((await (await send(admin, 'GET', `/api/v2/users/${id}`)).json()) as { role: string }).role

describe('a member (write:users, no delete:users) and roles', () => {
  it('cannot make herself an admin: 403 naming role, and she stays a member', async () => {
    const response = await send(member, 'PATCH', `/api/v2/users/${org.member.id}`, { role: 'admin' })
    await expectError(response, 403, 'FORBIDDEN', ['role'])
    expect(response.headers.get('www-authenticate')).toContain('scope="delete:users"')
    expect(await roleOf(org.member.id)).toBe('member')
  })

  it.each([
    ['PATCH an admin down to viewer', 'PATCH', { role: 'viewer' }],
    [
      'PUT an admin without a role (which resets it to member)',
      'PUT',
      { name: 'Renamed', email: 'x@e.example' },
    ],
  ])('cannot %s', async (_, method, json) => {
    await expectError(await send(member, method, `/api/v2/users/${org.admin.id}`, json), 403, 'FORBIDDEN', [
      'role',
    ])
    expect(await roleOf(org.admin.id)).toBe('admin')
  })

  it('cannot create an admin or a viewer, but creates members as before', async () => {
    for (const role of ['admin', 'viewer']) {
      const response = await send(member, 'POST', '/api/v2/users', {
        name: 'N',
        email: `${role}-new@e.example`,
        role,
      })
      await expectError(response, 403, 'FORBIDDEN', ['role'])
    }
    const plain = await send(member, 'POST', '/api/v2/users', { name: 'N', email: 'plain@e.example' })
    expect(plain.status).toBe(201)
    const explicit = await send(member, 'POST', '/api/v2/users', {
      name: 'N',
      email: 'm@e.example',
      role: 'member',
    })
    expect(explicit.status).toBe(201)
  })

  it('still changes other fields, sending the role it already has', async () => {
    const response = await send(member, 'PATCH', `/api/v2/users/${org.member.id}`, {
      name: 'Mia',
      role: 'member',
    })
    expect(response.status).toBe(200)
  })

  it('cannot promote herself through GraphQL either', async () => {
    const response = await send(member, 'POST', '/graphql', {
      query: `mutation { updateUser(id: "${org.member.id}", input: { role: admin }) { id role } }`,
    })
    const body = (await response.json()) as { errors?: { extensions: { code: string } }[] }
    expect(body.errors?.[0]?.extensions.code).toBe('FORBIDDEN')
    expect(await roleOf(org.member.id)).toBe('member')
  })
})

describe('an admin and roles', () => {
  it('promotes and demotes', async () => {
    const { id } = (await (
      await send(admin, 'POST', '/api/v2/users', { name: 'V', email: 'v@e.example', role: 'viewer' })
    ).json()) as { id: string }
    expect((await send(admin, 'PATCH', `/api/v2/users/${id}`, { role: 'admin' })).status).toBe(200)
    expect(await roleOf(id)).toBe('admin')
  })
})
