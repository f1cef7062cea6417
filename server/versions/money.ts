import type { ErrorDetail } from '../../shared/errors.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Json, VersionChange } from './change.ts'

/** The field that becomes a money object, per resource; its currency comes from `currency`. */
const MONEY_FIELDS: Record<string, string> = { orders: 'amount', products: 'price' }

const MONEY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['value', 'currency'],
  properties: {
    value: { type: 'integer', minimum: 0, description: 'Minor units (cents)' },
    currency: { type: 'string', description: 'ISO 4217 code' },
  },
}

/**
 * v2: an amount travels with its currency, as one object (`"amount": {"value": 1200, "currency":
 * "EUR"}`), so no client can read or write a number without the currency it is in. The separate
 * `currency` field is gone from orders and products.
 */
export const moneyObjects: VersionChange = {
  description:
    'orders.amount and products.price are money objects {value, currency}; the separate currency field is removed',
  fields: Object.fromEntries(
    Object.entries(MONEY_FIELDS).map(([name, field]) => [name, [field, 'currency']]),
  ),
  request: (resource: Resource, body: Json, problems: ErrorDetail[]) => {
    const field = MONEY_FIELDS[resource.name]!
    const out: Json = { ...body }
    if ('currency' in out) {
      problems.push({
        field: 'currency',
        message: `is part of ${field} in v2 ({"value": ..., "currency": ...})`,
      })
      delete out.currency
    }
    if (!(field in body)) return out
    const money = body[field]
    if (money === null || typeof money !== 'object' || Array.isArray(money)) {
      problems.push({ field, message: 'must be an object {"value": <integer>, "currency": "<ISO 4217>"}' })
      return out
    }
    const { value, currency, ...rest } = money as Json
    for (const key of Object.keys(rest))
      problems.push({ field: `${field}.${key}`, message: 'is not a field of a money object' })
    if (value === undefined) problems.push({ field: `${field}.value`, message: 'is required' })
    if (currency === undefined) problems.push({ field: `${field}.currency`, message: 'is required' })
    out[field] = value
    out.currency = currency
    return out
  },
  response: (resource: Resource, record: Json) => {
    const field = MONEY_FIELDS[resource.name]!
    if (!(field in record)) return record
    const { currency, ...rest } = record
    return { ...rest, [field]: { value: record[field], currency } }
  },
  // The engine checks `amount` and `currency` apart; in v2 they are one object. Without it in the
  // body both are missing, and the object is what to ask for; with it, each is one of its members.
  details: (resource: Resource, details: readonly ErrorDetail[], body: Json) => {
    const field = MONEY_FIELDS[resource.name]!
    const whole = !(field in body)
    return details.map(({ field: name, message }) => {
      if (name === field) return { field: whole ? field : `${field}.value`, message }
      if (name === 'currency') return { field: whole ? field : `${field}.currency`, message }
      return { field: name, message }
    })
  },
  schema: (resource: Resource, schema: Json) => {
    const field = MONEY_FIELDS[resource.name]!
    const properties = { ...(schema.properties as Json) }
    delete properties.currency
    properties[field] = MONEY_SCHEMA
    const required = Array.isArray(schema.required)
      ? (schema.required as string[]).filter((r) => r !== 'currency')
      : undefined
    return { ...schema, properties, ...(required ? { required } : {}) }
  },
}
