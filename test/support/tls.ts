/**
 * Test certificates made with Debian's openssl (.ci/run installs it): a private CA, a server
 * certificate it signed for 127.0.0.1 and localhost, and a key that belongs to neither.
 */
import { createHash, createPublicKey } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const OPENSSL = '/usr/bin/openssl'

export interface TestCertificates {
  dir: string
  /** The private CA's certificate: what `API_CA_CERT` names. */
  caCert: string
  /** The server's certificate (signed by the CA) and its key: `--tls-cert`, `--tls-key`. */
  cert: string
  key: string
  /** A key of another certificate. */
  otherKey: string
  /** base64(SHA-256(SubjectPublicKeyInfo)) of the server certificate, as Chromium's SPKI lists take it. */
  spki: string
}

function openssl(dir: string, ...args: string[]): void {
  const run = Bun.spawnSync([OPENSSL, ...args], { cwd: dir, stdout: 'pipe', stderr: 'pipe' })
  if (run.exitCode !== 0) throw new Error(`openssl ${args.join(' ')} failed: ${run.stderr.toString()}`)
}

/** Makes the CA and the certificates in a new temporary directory. */
export function makeTestCertificates(): TestCertificates {
  if (!existsSync(OPENSSL)) throw new Error(`${OPENSSL} is missing: apt-get install openssl`)
  const dir = mkdtempSync(join(tmpdir(), 'api-tls-'))
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes']
  openssl(
    dir,
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=api test CA',
  )
  openssl(dir, 'req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost')
  writeFileSync(
    join(dir, 'server.ext'),
    [
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      'basicConstraints=CA:FALSE',
      'keyUsage=digitalSignature',
      'extendedKeyUsage=serverAuth',
    ].join('\n'),
  )
  openssl(
    dir,
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'server.ext',
  )
  openssl(
    dir,
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'other.key',
    '-out',
    'other.pem',
    '-days',
    '2',
    '-subj',
    '/CN=other',
  )
  const cert = join(dir, 'server.pem')
  const spkiDer = createPublicKey(readFileSync(cert, 'utf8')).export({ type: 'spki', format: 'der' })
  return {
    dir,
    caCert: join(dir, 'ca.pem'),
    cert,
    key: join(dir, 'server.key'),
    otherKey: join(dir, 'other.key'),
    spki: createHash('sha256').update(spkiDer).digest('base64'),
  }
}
