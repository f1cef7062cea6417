import { describe, expect, it } from 'bun:test'
import { join } from 'node:path'

type Manifest = { engines?: { node?: unknown } }

const ROOT = join(import.meta.dir, '../..')
const pkg = (await Bun.file(join(ROOT, 'package.json')).json()) as Manifest
const lock = (await Bun.file(join(ROOT, 'package-lock.json')).json()) as {
  packages: Record<string, Manifest>
}

/** The oldest release of each Node line the README supports. */
const OLDEST = ['20.19.0', '22.12.0']

describe('npm install on a supported Node', () => {
  it('package.json states the supported Node versions, as the README does', () => {
    expect(pkg.engines?.node).toBe('^20.19.0 || >=22.12.0')
    expect(Bun.semver.satisfies('20.18.0', pkg.engines!.node as string)).toBe(false)
  })

  // npm prints an EBADENGINE warning for every locked package whose `engines` refuses the Node it runs on.
  it.each(OLDEST)('prints no engine warning on Node %s: every locked package accepts it', (node) => {
    const refusing = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && typeof p.engines?.node === 'string')
      .filter(([, p]) => !Bun.semver.satisfies(node, p.engines!.node as string))
      .map(([path, p]) => `${path}: ${p.engines!.node}`)
    expect(refusing).toEqual([])
  })
})
