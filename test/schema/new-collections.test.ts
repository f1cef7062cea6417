/**
 * A schema file's collections get their tables when the database has none yet, on SQLite and on
 * PostgreSQL: also collections that refer to each other (a team's lead is a member, a member's
 * team a team) or to themselves (a category's parent), which no order of CREATE TABLE satisfies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type SchemaDeclaration, schemaFromDeclaration } from '../../shared/schema/declaration.ts'
import { startTestServer, type Tenant, type TestServer } from '../support/server.ts'

const declaration: SchemaDeclaration = {
  resources: {
    teams: {
      singular: 'team',
      prefix: 'tea',
      fields: {
        name: { type: 'text' },
        leadId: { type: 'reference', to: 'members', nullable: true, filter: 'eq' },
      },
    },
    members: {
      singular: 'member',
      prefix: 'mem',
      fields: { name: { type: 'text' }, teamId: { type: 'reference', to: 'teams', filter: 'eq' } },
    },
    categories: {
      singular: 'category',
      prefix: 'cat',
      fields: { name: { type: 'text' }, parentId: { type: 'reference', to: 'categories', nullable: true } },
    },
  },
}

let server: TestServer
let tenant: Tenant
beforeAll(async () => {
  server = await startTestServer({ schema: schemaFromDeclaration(declaration) })
  tenant = await server.tenant()
})
afterAll(() => server?.stop())

const post = async (path: string, json: unknown) => {
  const response = await tenant.fetch(path, { method: 'POST', json })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

describe('tables of collections that refer to each other', () => {
  it('are made, and keep their references', async () => {
    const team = await post('/api/v2/teams', { name: 'Core' })
    expect(team.status).toBe(201)
    const member = await post('/api/v2/members', { name: 'Ada', teamId: team.body.id })
    expect(member.status).toBe(201)
    const led = await tenant.fetch(`/api/v2/teams/${team.body.id}`, {
      method: 'PATCH',
      json: { leadId: member.body.id },
    })
    expect(led.status).toBe(200)
    const dangling = await post('/api/v2/members', { name: 'Bob', teamId: 'tea_01jd3v0m7qf8s9t2w4x6y8z0ab' })
    expect(dangling.status).toBe(422)
    const root = await post('/api/v2/categories', { name: 'Books' })
    const child = await post('/api/v2/categories', { name: 'Novels', parentId: root.body.id })
    expect(child.status).toBe(201)
    expect(child.body.parentId).toBe(root.body.id as string)
  })
})
