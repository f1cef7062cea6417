import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { UsageError } from '../../server/admin/arguments.ts'
import { parsePolicy } from '../../server/admin/second-factors.ts'

const POLICIES: string[] = ['admins', 'all', 'none']

describe('parsePolicy (api-server org update --require-2fa, as typed)', () => {
  it('takes exactly admins, all and none', () => {
    for (const policy of POLICIES) expect(parsePolicy(policy) as string).toBe(policy)
  })

  it('refuses anything else with a usage error (exit 2) naming the three, and the value as typed', () => {
    const other = fc.string({ maxLength: 30 }).filter((s) => !POLICIES.includes(s))
    fc.assert(
      fc.property(other, (typed) => {
        let error: unknown
        try {
          parsePolicy(typed)
        } catch (caught) {
          error = caught
        }
        expect(error).toBeInstanceOf(UsageError)
        expect((error as Error).message).toContain('admins, all, none')
        if (typed !== '') expect((error as Error).message).toContain(`(got "${typed}")`)
      }),
      { seed: 29, numRuns: 500 },
    )
  })

  it('refuses a case or spacing variant rather than guessing (ADMINS, " all")', () => {
    const variant = fc
      .tuple(fc.constantFrom(...POLICIES), fc.constantFrom('upper', 'pad'))
      .map(([p, how]) => (how === 'upper' ? p.toUpperCase() : ` ${p}`))
    fc.assert(
      fc.property(variant, (typed) => {
        expect(() => parsePolicy(typed)).toThrow(UsageError)
      }),
      { seed: 29 },
    )
  })
})
