import {
  decodePKIXECDSASignature,
  decodeSEC1PublicKey,
  ECDSAPublicKey,
  p256,
  verifyECDSASignature,
} from '@oslojs/crypto/ecdsa'
import {
  decodePKCS1RSAPublicKey,
  RSAPublicKey,
  sha256ObjectIdentifier,
  verifyRSASSAPKCS1v15Signature,
} from '@oslojs/crypto/rsa'
import { decodeBase64, encodeBase64 } from '@oslojs/encoding'
import {
  COSEKeyType,
  type COSEPublicKey,
  coseAlgorithmES256,
  coseAlgorithmRS256,
  coseEllipticCurveP256,
} from '@oslojs/webauthn'
import { sha256Bytes } from '../../shared/crypto.ts'
import { PasskeyRefused } from './refusal.ts'

/** The COSE algorithms a passkey may use (WebAuthn §5.8.5's `pubKeyCredParams`), in order of preference. */
export const PASSKEY_ALGORITHMS = [coseAlgorithmES256, coseAlgorithmRS256] as const

/** A public key as stored: its algorithm and its bytes (SEC1 uncompressed for ES256, PKCS#1 for RS256), base64. */
export interface StoredKey {
  algorithm: number
  publicKey: string
}

/** The stored form of a credential's COSE key; `algorithm` when it is not ES256 on P-256 or RS256. */
export function storedKey(key: COSEPublicKey): StoredKey {
  try {
    if (!key.isAlgorithmDefined()) throw new PasskeyRefused('algorithm')
    const algorithm = key.algorithm()
    if (algorithm === coseAlgorithmES256 && key.type() === COSEKeyType.EC2) {
      const { curve, x, y } = key.ec2()
      if (curve !== coseEllipticCurveP256) throw new PasskeyRefused('algorithm')
      return { algorithm, publicKey: encodeBase64(new ECDSAPublicKey(p256, x, y).encodeSEC1Uncompressed()) }
    }
    if (algorithm === coseAlgorithmRS256 && key.type() === COSEKeyType.RSA) {
      const { n, e } = key.rsa()
      return { algorithm, publicKey: encodeBase64(new RSAPublicKey(n, e).encodePKCS1()) }
    }
  } catch (error) {
    if (error instanceof PasskeyRefused) throw error
    // The library throws a plain Error on a key that lacks a member its type needs.
    throw new PasskeyRefused('malformed')
  }
  throw new PasskeyRefused('algorithm')
}

/**
 * Whether `signature` is the stored key's signature of `message` (WebAuthn §7.2 step 20:
 * authenticatorData || SHA-256(clientDataJSON)): ECDSA P-256 with a DER signature, or RSASSA
 * PKCS#1 v1.5, both over SHA-256. A signature or key that cannot be decoded is no signature.
 */
export function signatureValid(key: StoredKey, message: Uint8Array, signature: Uint8Array): boolean {
  const hash = sha256Bytes(message)
  try {
    const bytes = decodeBase64(key.publicKey)
    if (key.algorithm === coseAlgorithmES256)
      return verifyECDSASignature(decodeSEC1PublicKey(p256, bytes), hash, decodePKIXECDSASignature(signature))
    if (key.algorithm === coseAlgorithmRS256)
      return verifyRSASSAPKCS1v15Signature(
        decodePKCS1RSAPublicKey(bytes),
        sha256ObjectIdentifier,
        hash,
        signature,
      )
  } catch {
    return false
  }
  return false
}
