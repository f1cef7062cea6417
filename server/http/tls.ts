import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { isIPv4 } from 'node:net'

/**
 * RFC 6797: browsers that saw this over HTTPS use only HTTPS for the host for a year. No
 * `includeSubDomains`: the operator's other hosts under the same name are not ours to decide.
 */
export const HSTS = 'max-age=31536000'

/** The PEM files of `--tls-cert` and `--tls-key`. */
export interface TlsFiles {
  certFile: string
  keyFile: string
}

/** A certificate (chain) and its key, as Bun.serve takes them. */
interface TlsPem {
  cert: string
  key: string
}

/** A certificate or key file the server cannot use; the message names the file. */
class TlsFileError extends Error {
  override name = 'TlsFileError'
}

function readPem(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const reason =
      code === 'ENOENT'
        ? 'does not exist'
        : code === 'EACCES'
          ? 'cannot be read (permission denied)'
          : code === 'EISDIR'
            ? 'is a directory'
            : `cannot be read (${code ?? (error as Error).message})`
    throw new TlsFileError(`the TLS ${what} ${path} ${reason}`)
  }
}

/**
 * Reads `--tls-cert` and `--tls-key` and checks them before anything listens: each file exists
 * and can be read, the first is a PEM certificate (its chain may follow), the second an
 * unencrypted PEM private key, and the key is the certificate's. Each refusal names the file.
 */
export function loadTls(files: TlsFiles): TlsPem {
  const cert = readPem(files.certFile, 'certificate')
  const key = readPem(files.keyFile, 'key')
  let leaf: X509Certificate
  try {
    leaf = new X509Certificate(cert)
  } catch {
    throw new TlsFileError(`the TLS certificate ${files.certFile} is not a PEM certificate`)
  }
  let privateKey: KeyObject
  try {
    privateKey = createPrivateKey(key)
  } catch {
    throw new TlsFileError(`the TLS key ${files.keyFile} is not an unencrypted PEM private key`)
  }
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new TlsFileError(
      `the TLS key ${files.keyFile} does not belong to the certificate ${files.certFile}`,
    )
  }
  return { cert, key }
}

/** Whether a listening address is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase()
  if (bare === 'localhost' || bare === '::1') return true
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare
  return isIPv4(v4) && v4.startsWith('127.')
}

/** How `serve` is to keep bearer tokens off the network in clear text. */
interface Transport {
  tls: boolean
  trustProxy: boolean
  insecureHttp: boolean
}

/**
 * The contract's rule: bearer tokens travel over HTTPS only, so plain HTTP on an address other
 * than loopback needs TLS, a proxy in front that terminates it, or the operator's explicit
 * `--insecure-http`. Returns the one-line reason to refuse, or undefined.
 */
export function plainHttpRefusal(host: string, transport: Transport): string | undefined {
  if (transport.tls || transport.trustProxy || transport.insecureHttp || isLoopback(host)) return undefined
  return `refusing to serve plain HTTP on ${host}: bearer tokens travel over HTTPS only; give --tls-cert and --tls-key, --trust-proxy behind a proxy that terminates TLS, or --insecure-http to accept the risk`
}
