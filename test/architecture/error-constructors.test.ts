import { describe, expect, it } from 'bun:test'
import { Glob } from 'bun'

/**
 * Errors are built by the named constructors of shared/errors.ts (`conflict()`, `forbidden()`,
 * `insufficientScope()`, ...), so that a status, its code and its headers are spelled in one place.
 * `new ApiError(` elsewhere is for an error whose code is not known in advance (one read from the
 * wire, or rebuilt in other words), and says so in a comment starting `new ApiError:` on its line
 * or the line above.
 */

const ROOT = `${import.meta.dir}/../..`
const HOME = 'shared/errors.ts'
const INLINE = /\bnew ApiError\(/
const REASON = /\/\/ new ApiError: \S/

async function sources(): Promise<string[]> {
  const files: string[] = []
  for (const folder of ['server', 'shared', 'cli'])
    for await (const path of new Glob(`${folder}/**/*.ts`).scan(ROOT)) files.push(path)
  return files.sort()
}

/** `path:line: text` of every `new ApiError(` outside shared/errors.ts without its reason. */
async function inlineErrors(): Promise<string[]> {
  const found: string[] = []
  for (const path of await sources()) {
    if (path === HOME) continue
    const lines = (await Bun.file(`${ROOT}/${path}`).text()).split('\n')
    lines.forEach((line, i) => {
      const excused = REASON.test(line) || REASON.test(lines[i - 1] ?? '')
      if (INLINE.test(line) && !excused) found.push(`${path}:${i + 1}: ${line.trim()}`)
    })
  }
  return found
}

describe('error constructors', () => {
  it('finds the sources it checks', async () => {
    const files = await sources()
    expect(files).toContain(HOME)
    expect(files).toContain('cli/errors.ts')
    expect(files.length).toBeGreaterThan(150)
  })

  it('builds every ApiError outside shared/errors.ts with a named constructor, or says why not', async () => {
    expect(await inlineErrors()).toEqual([])
  })

  it('recognises what it forbids and the reason that excuses it', () => {
    expect(INLINE.test("throw new ApiError('CONFLICT', 'Taken.')")).toBe(true)
    expect(INLINE.test('return Object.assign(new ApiError(code, message), { status })')).toBe(true)
    expect(INLINE.test("throw conflict('Taken.')")).toBe(false)
    expect(REASON.test("    // new ApiError: the code is the server's, read from the wire.")).toBe(true)
    expect(REASON.test('    // new ApiError:')).toBe(false)
    expect(REASON.test('    // builds the error')).toBe(false)
  })
})
