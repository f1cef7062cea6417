/** The token endpoint's answer to a confidential client's client-credentials request: its status and token. */
export async function clientCredentials(
  url: string,
  client: { id: string; secret: string },
  scope?: string,
): Promise<{ status: number; token?: string; body: unknown }> {
  const response = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}`,
    },
    body: `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}`,
  })
  const body = (await response.json()) as { access_token?: unknown }
  const token = typeof body.access_token === 'string' ? body.access_token : undefined
  return { status: response.status, ...(token ? { token } : {}), body }
}

/** An access token for a confidential client from `url`'s token endpoint (client credentials). */
export async function clientToken(
  url: string,
  client: { id: string; secret: string },
  scope?: string,
): Promise<string> {
  const { status, token, body } = await clientCredentials(url, client, scope)
  if (status !== 200 || !token)
    throw new Error(`token request to ${url} failed: ${status} ${JSON.stringify(body)}`)
  return token
}
