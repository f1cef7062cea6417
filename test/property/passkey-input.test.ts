import { describe, expect, it } from 'bun:test'
import { encodeBase64urlNoPadding } from '@oslojs/encoding'
import { ClientDataType } from '@oslojs/webauthn'
import fc from 'fast-check'
import { passkeyName } from '../../server/passkeys/account.ts'
import { checkedAuthenticatorData, checkedClientData } from '../../server/passkeys/client-data.ts'
import { readAssertion, readRegistration } from '../../server/passkeys/credential-fields.ts'
import { PasskeyRefused } from '../../server/passkeys/refusal.ts'

/** What a browser (or anyone) can post to the passkey forms: every parser answers or refuses, never throws else. */
const SEED = Number(process.env.PROPERTY_SEED ?? 2926)
const runs = { seed: SEED, numRuns: 500 }
const ISSUER = 'http://localhost:4000'

function outcome(parse: () => unknown): 'ok' | PasskeyRefused['problem'] {
  try {
    parse()
    return 'ok'
  } catch (error) {
    if (error instanceof PasskeyRefused) return error.problem
    throw error
  }
}

const bytes = fc.uint8Array({ maxLength: 300 })
const anyText = fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: 'binary', maxLength: 60 }))
const fieldValue = fc.oneof(bytes.map(encodeBase64urlNoPadding), anyText, fc.constant(''))
const ASSERTION_FIELDS = [
  'credential_id',
  'client_data_json',
  'authenticator_data',
  'signature',
  'user_handle',
]

describe('the passkey forms’ fields', () => {
  it('decode base64url fields to their bytes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ minLength: 1, maxLength: 200 }), { minLength: 5, maxLength: 5 }),
        (values) => {
          const form = new Map(
            ASSERTION_FIELDS.map((name, i) => [name, encodeBase64urlNoPadding(values[i]!)]),
          )
          const read = readAssertion(form)
          expect([
            read.credentialId,
            read.clientDataJSON,
            read.authenticatorData,
            read.signature,
            read.userHandle,
          ]).toEqual(values)
        },
      ),
      runs,
    )
  })

  it('refuse anything else as missing or malformed, never with another error', () => {
    fc.assert(
      fc.property(fc.array(fieldValue, { minLength: 5, maxLength: 5 }), (values) => {
        const form = new Map(ASSERTION_FIELDS.map((name, i) => [name, values[i]!]))
        expect(['ok', 'missing', 'malformed']).toContain(outcome(() => readAssertion(form)))
        const registration = new Map([
          ['client_data_json', values[0]!],
          ['attestation_object', values[1]!],
        ])
        expect(['ok', 'missing', 'malformed']).toContain(outcome(() => readRegistration(registration)))
      }),
      runs,
    )
  })

  it('refuse a field longer than 16 KiB', () => {
    expect(
      outcome(() =>
        readRegistration(
          new Map([
            ['client_data_json', 'A'.repeat(16_385)],
            ['attestation_object', 'AA'],
          ]),
        ),
      ),
    ).toBe('malformed')
  })
})

describe('client data and authenticator data', () => {
  it('any bytes as client data are parsed or refused as malformed or origin', () => {
    const json = fc.record({
      type: fc.constantFrom('webauthn.get', 'webauthn.create', 'other', 1),
      challenge: fc.oneof(bytes.map(encodeBase64urlNoPadding), anyText),
      origin: fc.constantFrom(ISSUER, 'http://127.0.0.1:4000', 'https://localhost:4000', 'null'),
      crossOrigin: fc.constantFrom(true, false, 'yes'),
    })
    const input = fc.oneof(
      bytes,
      json.map((j) => new TextEncoder().encode(JSON.stringify(j))),
    )
    fc.assert(
      fc.property(input, fc.constantFrom(ClientDataType.Get, ClientDataType.Create), (encoded, type) => {
        expect(['ok', 'malformed', 'origin']).toContain(
          outcome(() => checkedClientData(ISSUER, encoded, type)),
        )
      }),
      runs,
    )
  })

  it('any bytes as authenticator data are parsed or refused, and a wrong relying party never passes', () => {
    fc.assert(
      fc.property(bytes, (encoded) => {
        expect(['malformed', 'relying-party']).toContain(
          outcome(() => checkedAuthenticatorData(ISSUER, encoded)),
        )
      }),
      runs,
    )
  })
})

describe('passkeyName', () => {
  it('keeps a trimmed name of 1 to 60 characters without control characters, and nothing else', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.string({ maxLength: 80 })), (input) => {
        const name = passkeyName(input)
        if (name === null) return
        expect(name).toBe(input.trim())
        expect(name.length).toBeGreaterThan(0)
        expect(name.length).toBeLessThanOrEqual(60)
        expect(
          [...name].some(
            (c) => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f),
          ),
        ).toBe(false)
      }),
      runs,
    )
  })
})
