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
  'date-time': 'must be an RFC 3339 date-time (e.g. 2026-11-27T09:30:00Z)',
  uri: 'must be an absolute URL',
}

/** RFC 3339 §5.6 date-time: a full date, a time with seconds, and `Z` or an offset. */
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-](\d{2}):(\d{2}))$/

/**
 * A date-time as RFC 3339 writes it, of a day that exists (`2026-02-30` does not): not whatever
 * `Date.parse` takes, which reads `"0"` and `"March 7"` as dates.
 */
function isDateTime(value: string): boolean {
  const m = DATE_TIME.exec(value)
  if (!m) return false
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[]
  const days = new Date(Date.UTC(year!, month!, 0)).getUTCDate()
  const offsetOk = m[7] === undefined || (Number(m[7]) <= 23 && Number(m[8]) <= 59)
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= days &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 59 &&
    offsetOk
  )
}

const isCountry = (value: string) =>
  /^[A-Z]{2}$/.test(value) && !NOT_COUNTRIES.has(value) && regions.of(value) !== undefined

FormatRegistry.Set('email', (value) => value.length <= 254 && EMAIL.test(value))
FormatRegistry.Set('country', isCountry)
FormatRegistry.Set('currency', (value) => /^[A-Z]{3}$/.test(value) && CURRENCIES.has(value))
FormatRegistry.Set('uri', (value) => URL.canParse(value) && /^[a-z][a-z0-9+.-]*:/i.test(value))
FormatRegistry.Set('date-time', isDateTime)
