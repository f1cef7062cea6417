import type { Tenant, TestServer } from '../support/server.ts'
import { clientCredentials } from '../support/tokens.ts'

export type Client = Record<string, unknown> & { id: string; secret?: string }

/**
 * What the clients' tests ask of a server for one tenant: a create through the resource (each
 * secret it answers kept in `secrets`), an action, and what a client's secret and tokens are worth
 * at the token endpoint, the API and introspection.
 */
export function clientsOf(server: TestServer, tenant: Tenant, secrets: string[] = []) {
  async function create(body: unknown, who: Tenant = tenant): Promise<Client> {
    const response = await who.fetch('/api/v2/oauth-clients', { method: 'POST', json: body })
    const answer = (await response.json()) as Client
    if (response.status !== 201) throw new Error(`create: ${response.status} ${JSON.stringify(answer)}`)
    if (answer.secret) secrets.push(answer.secret)
    return answer
  }

  const action = (id: string, name: string) =>
    tenant.fetch(`/api/v2/oauth-clients/${id}/${name}`, { method: 'POST', json: {} })

  /** The status of a token request with client credentials. */
  const tokenStatus = async (id: string, secret: string) =>
    (await clientCredentials(server.url, { id, secret })).status

  /** The status of a read of the API with `token`. */
  async function apiStatus(token: string): Promise<number> {
    const response = await fetch(`${server.url}/api/v2/products`, {
      headers: { Authorization: `Bearer ${token}` },
    })
    await response.body?.cancel()
    return response.status
  }

  /** Whether the tenant's own client hears that `token` is active. */
  async function introspect(token: string): Promise<unknown> {
    const response = await fetch(`${server.url}/oauth/introspect`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${btoa(`${tenant.clientId}:${tenant.clientSecret}`)}`,
      },
      body: new URLSearchParams({ token }).toString(),
    })
    return ((await response.json()) as { active: boolean }).active
  }

  return { create, action, tokenStatus, apiStatus, introspect }
}
