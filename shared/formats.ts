import { FormatRegistry } from '@sinclair/typebox'

/** String formats the resource schemas use. Registered once, for server and CLI alike. */
const CURRENCIES = new Set(Intl.supportedValuesOf('currency'))
const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' })
// Region codes ICU knows that are not ISO 3166-1 alpha-2 country codes.
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'XA', 'XB', 'XK', 'ZZ'])
const EMAIL = /^[^\s@"<>()[\]\\,;:]+@[^\s@"<>()[\]\\,;:]+\.[^\s@"<>()[\]\\,;:.]+$/

export const FORMAT_MESSAGES: Record<string, string> = {
  email: 'must be an e-mail address',
  country: 'must be an ISO 3166-1 alpha-2 country code (e.g. DE)',
  currency: 'must be an ISO 4217 currency code (e.g. EUR)',
  'date-time': 'must be an ISO 8601 date-time',
  uri: 'must be an absolute URL',
}

const isCountry = (value: string) =>
  /^[A-Z]{2}$/.test(value) && !NOT_COUNTRIES.has(value) && regions.of(value) !== undefined

FormatRegistry.Set('email', (value) => value.length <= 254 && EMAIL.test(value))
FormatRegistry.Set('country', isCountry)
FormatRegistry.Set('currency', (value) => /^[A-Z]{3}$/.test(value) && CURRENCIES.has(value))
FormatRegistry.Set('uri', (value) => URL.canParse(value) && /^[a-z][a-z0-9+.-]*:/i.test(value))
FormatRegistry.Set('date-time', (value) => !Number.isNaN(Date.parse(value)))
