/** What --verbose shows of a request body: never a secret field's value, whatever the body. */
import { describe, expect, it } from 'bun:test'
import fc from 'fast-check'
import { redactBody } from '../../cli/verbose.ts'

const SECRET_KEYS = [
  'client_secret',
  'refresh_token',
  'token',
  'code',
  'code_verifier',
  'device_code',
  'password',
  'accessToken',
]
const value = fc.stringMatching(/^[A-Za-z0-9._~-]{12,40}$/)

describe('redactBody (property)', () => {
  it('hides every secret field of a form, keeping the others', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SECRET_KEYS), value, fc.string(), (key, secret, other) => {
        const body = new URLSearchParams({
          grant_type: 'refresh_token',
          [key]: secret,
          note: other,
        }).toString()
        const shown = redactBody(body, 'application/x-www-form-urlencoded')
        expect(shown).not.toContain(secret)
        expect(shown).toContain(`${key}=[redacted]`)
        expect(shown).toContain('grant_type=refresh_token')
      }),
    )
  })

  it('hides secret fields at any depth of a JSON body', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SECRET_KEYS),
        value,
        fc.integer({ min: 0, max: 4 }),
        (key, secret, depth) => {
          let body: unknown = { [key]: secret, name: 'Lamp' }
          for (let i = 0; i < depth; i++) body = { nested: [body] }
          const shown = redactBody(JSON.stringify(body), 'application/json')
          expect(shown).not.toContain(secret)
          expect(shown).toContain('"name":"Lamp"')
        },
      ),
    )
  })
})
