/** `api list events --actor-id`: who did what, through the CLI as a real process. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { CLI_CLIENT_ID } from '../../server/store/types.ts'
import { codeFlow, discover, orgWithUsers } from '../oauth/support.ts'
import { startTestServer, type TestServer } from '../support/server.ts'
import type { Env } from './fixtures.ts'
import { removeTempDirs, secret, spawnCli, tempDir } from './harness.ts'

interface Event {
  id: string
  type: string
  resourceId: string
  actor: { type: string; id: string } | null
  requestId: string | null
}

let server: TestServer
let org: Awaited<ReturnType<typeof orgWithUsers>>
let asMember: Env
let asAdmin: Env

beforeAll(async () => {
  server = await startTestServer()
  org = await orgWithUsers(server, 'Who did it')
  const cli = await discover(server, CLI_CLIENT_ID)
  const token = async (email: string) =>
    (await codeFlow(server, cli, 'http://127.0.0.1:5000/callback', email)).access_token
  const [member, admin] = [await token(org.member.email), await token(org.admin.email)]
  secret(member, admin)
  const env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
  asMember = { ...env, API_TOKEN: member }
  asAdmin = { ...env, API_TOKEN: admin }
})
afterAll(async () => {
  await server.stop()
  removeTempDirs()
})

/** Creates a post through the CLI; returns its id. */
async function post(env: Env, authorId: string, title: string): Promise<string> {
  const run = await spawnCli(['create', 'posts', `authorId=${authorId}`, `title=${title}`], env)
  expect(run.code).toBe(0)
  return (JSON.parse(run.stdout) as { id: string }).id
}

describe('api list events --actor-id', () => {
  let mine: string
  let theirs: string

  beforeAll(async () => {
    mine = await post(asMember, org.member.id, 'By the member')
    theirs = await post(asAdmin, org.admin.id, 'By the admin')
    const update = await spawnCli(['update', `posts/${mine}`, 'title=Renamed by the admin'], asAdmin)
    expect(update.code).toBe(0)
  })

  it("lists only that user's events, each saying who and in which request", async () => {
    const run = await spawnCli(['list', 'events', '--actor-id', org.member.id], asAdmin)
    expect(run.code).toBe(0)
    expect(run.stderr).toBe('')
    const events = JSON.parse(run.stdout) as Event[]
    // Newest first: the post, then the member's sign-in that made the token.
    expect(events.map((e) => [e.type, e.resourceId])).toEqual([
      ['post.created', mine],
      ['user.signed_in', org.member.id],
    ])
    expect(events[0]!.actor).toEqual({ type: 'user', id: org.member.id })
    expect(events[0]!.requestId).toEqual(expect.any(String))
  })

  it('answers who changed a record: list its events and read the actors', async () => {
    const run = await spawnCli(['list', 'events', '--resource-id', mine, '--sort', 'created_at'], asMember)
    const events = JSON.parse(run.stdout) as Event[]
    expect(events.map((e) => [e.type, e.actor?.id])).toEqual([
      ['post.created', org.member.id],
      ['post.updated', org.admin.id],
    ])
    const admin = await spawnCli(
      ['list', 'events', '--actor-id', org.admin.id, '--format', 'ndjson'],
      asAdmin,
    )
    const lines = admin.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Event)
    expect(lines.map((e) => e.resourceId)).toEqual([mine, theirs, org.admin.id])
    expect(lines[2]!.type).toBe('user.signed_in')
  })

  it('shows the actor as two columns of a table', async () => {
    const run = await spawnCli(['list', 'events', '--actor-id', org.member.id, '--format', 'table'], asAdmin)
    expect(run.code).toBe(0)
    // Columns are two spaces apart; a header's words (REQUEST ID) one.
    const [header, row] = run.stdout
      .trimEnd()
      .split('\n')
      .map((line) => line.split(/\s{2,}/))
    expect(header).toEqual(expect.arrayContaining(['ACTOR.TYPE', 'ACTOR.ID', 'REQUEST ID']))
    expect(row![header!.indexOf('ACTOR.TYPE')]).toBe('user')
    expect(row![header!.indexOf('ACTOR.ID')]).toBe(org.member.id)
  })

  it('shows the system for what an admin command did', async () => {
    const run = await spawnCli(['list', 'events', '--actor-id', 'api-server'], asAdmin)
    const events = JSON.parse(run.stdout) as Event[]
    expect(events.map((e) => e.resourceId).sort()).toEqual(
      [org.admin.id, org.member.id, org.viewer.id].sort(),
    )
    expect(events.every((e) => e.actor?.type === 'system' && e.requestId === null)).toBe(true)
  })
})
