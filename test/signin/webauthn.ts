import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
} from 'node:crypto'
import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { type Browser, chromium, type Page } from 'playwright-core'
import { CHROMIUM } from '../oauth/browser.ts'
import { PageAgent } from '../oauth/support.ts'

/** One headless Chromium for a whole test file (each test opens its own context in it). */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
    ],
  })

/** A credential the virtual authenticator holds, as the DevTools protocol shows it. */
interface VirtualCredential {
  credentialId: string
  isResidentCredential: boolean
  rpId: string
  /** PKCS#8, base64. */
  privateKey: string
  userHandle?: string
  signCount: number
}

/**
 * A platform authenticator with user verification and discoverable credentials, attached to `page`
 * through the DevTools protocol's WebAuthn domain: the browser's real WebAuthn code runs, only the
 * hardware is simulated (and presence and verification always succeed).
 */
export async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return {
    credentials: async (): Promise<VirtualCredential[]> =>
      (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as VirtualCredential[],
    /**
     * Puts a discoverable ES256 credential for `userId` on the authenticator, with a key made here
     * and the counter given; answers what the server must store to know it (as a registration would).
     */
    add: async (userId: string, signCount: number) => {
      const { credential, stored } = knownPasskey(userId, signCount)
      await cdp.send('WebAuthn.addCredential', { authenticatorId, credential })
      return stored
    },
  }
}

/** A P-256 public key as the uncompressed SEC1 point the server stores for an ES256 passkey. */
export function sec1Point(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' })
  return Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')])
}

/**
 * A discoverable ES256 credential for `userId` with a key made here: as an authenticator holds it
 * (the DevTools protocol's shape), and as the server stores it once registered.
 */
export function knownPasskey(userId: string, signCount = 0) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const point = sec1Point(publicKey)
  const id = randomBytes(16)
  const credential: VirtualCredential = {
    credentialId: id.toString('base64'),
    isResidentCredential: true,
    rpId: 'localhost',
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    userHandle: Buffer.from(userId).toString('base64'),
    signCount,
  }
  return {
    credential,
    stored: { id: id.toString('base64url'), userId, algorithm: -7, publicKey: point.toString('base64') },
  }
}

/** A passkey form of a page: its action, hidden fields and the options the script would hand the browser. */
export function passkeyFormOf(page: string, mode: 'get' | 'create' = 'get') {
  const unescapeHtml = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
  const match = new RegExp(
    `<form method="post" action="([^"]*)" data-passkey="${mode}" data-passkey-options="([^"]*)">([\\s\\S]*?)</form>`,
  ).exec(page)
  if (!match) throw new Error(`no passkey form on the page:\n${page}`)
  const fields: Record<string, string> = {}
  for (const input of match[3]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[input[1]!] = unescapeHtml(input[2]!)
  return {
    action: unescapeHtml(match[1]!),
    options: JSON.parse(unescapeHtml(match[2]!)) as { challenge: string; rpId: string; allow?: string[] },
    fields,
  }
}

interface AssertionParts {
  credential: Pick<VirtualCredential, 'credentialId' | 'privateKey'>
  challenge: string
  origin: string
  rpId?: string
  signCount: number
  /** The authenticator data's flags: user present (0x01) and verified (0x04) unless said. */
  flags?: number
  type?: string
}

/** The fields the passkey script posts for an assertion. */
interface PostedAssertion extends Record<string, string> {
  credential_id: string
  client_data_json: string
  authenticator_data: string
  signature: string
  user_handle: string
}

/** An assertion made in the test with the credential's private key: every part as the test says. */
export function craftAssertion(parts: AssertionParts): PostedAssertion {
  const clientDataJSON = Buffer.from(
    JSON.stringify({
      type: parts.type ?? 'webauthn.get',
      challenge: parts.challenge,
      origin: parts.origin,
      crossOrigin: false,
    }),
  )
  const counter = Buffer.alloc(4)
  counter.writeUInt32BE(parts.signCount)
  const authenticatorData = Buffer.concat([
    createHash('sha256')
      .update(parts.rpId ?? 'localhost')
      .digest(),
    Buffer.from([parts.flags ?? 0x05]),
    counter,
  ])
  const key = createPrivateKey({
    key: Buffer.from(parts.credential.privateKey, 'base64'),
    format: 'der',
    type: 'pkcs8',
  })
  const signature = sign(
    'sha256',
    Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]),
    key,
  )
  return {
    credential_id: Buffer.from(parts.credential.credentialId, 'base64').toString('base64url'),
    client_data_json: encodeBase64urlNoPadding(clientDataJSON),
    authenticator_data: encodeBase64urlNoPadding(authenticatorData),
    signature: encodeBase64urlNoPadding(signature),
    user_handle: '',
  }
}

/** Opens `path` (a login page) over HTTP and posts its passkey form with what `answer` makes of its challenge. */
export async function postPasskeyLogin(
  base: string,
  path: string,
  answer: (challenge: string) => Record<string, string>,
): Promise<Response> {
  const agent = new PageAgent(base)
  const form = passkeyFormOf(await (await agent.get(path)).text())
  return agent.request(form.action, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: base },
    body: new URLSearchParams({ ...form.fields, ...answer(form.options.challenge) }).toString(),
  })
}
