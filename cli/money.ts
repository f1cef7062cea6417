const digitsByCurrency = new Map<string, number | null>()
const GROUPED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })

/** The decimals of a currency's minor unit (EUR 2, JPY 0, BHD 3); null for a code Intl refuses. */
function minorDigits(currency: string): number | null {
  let digits = digitsByCurrency.get(currency)
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
          .maximumFractionDigits ?? null
    } catch {
      digits = null
    }
    digitsByCurrency.set(currency, digits)
  }
  return digits
}

/**
 * A v2 money object (`{"value": 4200, "currency": "EUR"}`, the value in minor units) as a person
 * reads it: `42.00 EUR`, `1,234.56 USD`, `500 JPY`. Null for anything that is not one.
 */
export function formatMoney(money: unknown): string | null {
  if (!money || typeof money !== 'object' || Array.isArray(money)) return null
  const { value, currency, ...rest } = money as Record<string, unknown>
  if (Object.keys(rest).length > 0 || typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    return null
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return null
  const digits = minorDigits(currency)
  if (digits === null) return null
  // Integer arithmetic on the minor units: no binary fraction ever reaches the text.
  const unit = 10 ** digits
  const abs = Math.abs(value)
  const minor = digits > 0 ? `.${String(abs % unit).padStart(digits, '0')}` : ''
  return `${value < 0 ? '-' : ''}${GROUPED.format(Math.floor(abs / unit))}${minor} ${currency}`
}
