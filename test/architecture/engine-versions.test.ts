import { describe, expect, it } from 'bun:test'
import { Glob } from 'bun'

/**
 * Version translation happens at the front doors (docs/architecture.md): the engine,
 * `server/resources/`, reads and pages records in one internal shape and gets how to show them
 * (`Presentation`) from the front door that asked. It imports nothing from `server/versions/`.
 */

const ROOT = `${import.meta.dir}/../..`

describe('the engine and the API versions', () => {
  it('server/resources/ imports nothing from server/versions/ and names no version', async () => {
    const offending: string[] = []
    let files = 0
    for await (const path of new Glob('server/resources/**/*.ts').scan(ROOT)) {
      files += 1
      const text = await Bun.file(`${ROOT}/${path}`).text()
      for (const match of text.matchAll(/(?:import|export)\s[^'"`]*?from\s+['"]([^'"]+)['"]/g))
        if (/(?:^|\/)versions\//.test(match[1]!)) offending.push(`${path} imports ${match[1]}`)
      if (/\bApiVersion\b|\bfromBase\b|\btoBase\b/.test(text)) offending.push(`${path} names a version`)
    }
    expect(files).toBeGreaterThan(10)
    expect(offending).toEqual([])
  })
})
