import { describe, expect, it } from 'bun:test'
import { generateKeyPairSync, sign } from 'node:crypto'
import { signatureValid } from '../../server/passkeys/public-key.ts'
import { sec1Point } from './webauthn.ts'

/**
 * The two signature algorithms a passkey may use (WebAuthn §5.8.5), checked against node's own
 * signatures: ES256 (DER ECDSA over P-256, the key as its SEC1 point) and RS256 (RSASSA PKCS#1
 * v1.5, the key as PKCS#1). The browser tests cover ES256 end to end; Chromium's virtual
 * authenticator makes no RSA keys, so RS256 is held here.
 */
const message = new TextEncoder().encode('authenticatorData || SHA-256(clientDataJSON)')

function es256() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return { key: { algorithm: -7, publicKey: sec1Point(publicKey).toString('base64') }, privateKey }
}

function rs256() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const pkcs1 = publicKey.export({ format: 'der', type: 'pkcs1' })
  return { key: { algorithm: -257, publicKey: pkcs1.toString('base64') }, privateKey }
}

describe.each([
  ['ES256', es256],
  ['RS256', rs256],
])('signatureValid with %s', (_name, make) => {
  const { key, privateKey } = make()
  const signature = sign('sha256', message, privateKey)

  it('accepts the key’s signature of the message', () => {
    expect(signatureValid(key, message, signature)).toBe(true)
  })

  it('refuses it over another message, from another key, or under another algorithm', () => {
    expect(signatureValid(key, new TextEncoder().encode('something else'), signature)).toBe(false)
    expect(signatureValid(make().key, message, signature)).toBe(false)
    expect(signatureValid({ ...key, algorithm: -8 }, message, signature)).toBe(false)
  })

  it('refuses a signature or a stored key that cannot be decoded, without throwing', () => {
    expect(signatureValid(key, message, new Uint8Array([0x30, 1, 2]))).toBe(false)
    expect(signatureValid({ ...key, publicKey: 'AAAA' }, message, signature)).toBe(false)
  })
})
