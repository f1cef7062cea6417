/** An access token for a confidential client from `url`'s token endpoint (client credentials). */
export async function clientToken(
  url: string,
  client: { id: string; secret: string },
  scope?: string,
): Promise<string> {
  const response = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${btoa(`${client.id}:${client.secret}`)}`,
    },
    body: `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}`,
  })
  const body = (await response.json()) as { access_token?: unknown }
  if (response.status !== 200 || typeof body.access_token !== 'string')
    throw new Error(`token request to ${url} failed: ${response.status} ${JSON.stringify(body)}`)
  return body.access_token
}
