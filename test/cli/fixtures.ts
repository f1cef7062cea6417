import type { Tenant, TestServer } from '../support/server.ts'
import { runCli, secret, tempDir } from './harness.ts'

export type Env = Record<string, string | undefined>

/** A config home logged in to the server with the tenant's client credentials (the CI path). */
export async function loggedInEnv(server: TestServer, tenant: Tenant): Promise<Env> {
  secret(tenant.token, tenant.clientSecret)
  const env: Env = { API_URL: server.url, XDG_CONFIG_HOME: tempDir() }
  const login = await runCli(
    ['login', '--client-credentials', '--client-id', tenant.clientId, '--client-secret', tenant.clientSecret],
    { env },
  )
  if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`)
  return env
}

export async function created(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>
  if (response.status !== 201) throw new Error(`setup failed: ${response.status} ${JSON.stringify(body)}`)
  return body
}

let users = 0

export async function seedUser(tenant: Tenant, name = 'Ada'): Promise<string> {
  users += 1
  const body = { name, email: `user${users}-${crypto.randomUUID().slice(0, 8)}@example.com` }
  return (await created(await tenant.fetch('/api/v1/users', { method: 'POST', json: body }))).id as string
}

export interface Order {
  id: string
  amount: number
  status: string
  createdAt: string
}

/** Creates orders one by one (so their creation order is the list order reversed). */
export async function seedOrders(
  tenant: Tenant,
  userId: string,
  specs: { amount: number; status: string }[],
): Promise<Order[]> {
  const orders: Order[] = []
  for (const spec of specs) {
    const json = { userId, currency: 'EUR', ...spec }
    orders.push((await created(await tenant.fetch('/api/v1/orders', { method: 'POST', json }))) as never)
  }
  return orders
}

/** Ids of the records in a JSON array printed by the CLI. */
export const idsOf = (stdout: string): string[] =>
  (JSON.parse(stdout) as { id: string }[]).map((record) => record.id)
