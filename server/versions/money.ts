import type { ErrorDetail } from '../../shared/errors.ts'
import type { Resource } from '../../shared/resources/index.ts'
import type { Json, VersionChange } from './change.ts'

type Money = { field: string; currency: string } | null

// Asked for every record of every v2 answer: found once per resource.
const found = new WeakMap<Resource, Money>()

/** A resource's amount that becomes a money object, and the field its currency comes from. */
function moneyOf(resource: Resource): Money {
  let money = found.get(resource)
  if (money === undefined) {
    const entry = Object.entries(resource.fields).find(([, field]) => field.currencyField)
    money = entry ? { field: entry[0], currency: entry[1].currencyField! } : null
    found.set(resource, money)
  }
  return money
}

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
 * "EUR"}`), so no client can read or write a number without the currency it is in. An integer field
 * declared with `currencyField` is such an amount (the example's orders.amount and products.price);
 * its currency field is gone from the record.
 */
export const moneyObjects: VersionChange = {
  description: (resources) =>
    `${resources.map((r) => `${r.name}.${moneyOf(r)!.field}`).join(' and ') || 'amounts with a currencyField'} are money objects {value, currency}; the separate currency field is removed`,
  fields: (resource) => {
    const money = moneyOf(resource)
    return money ? [money.field, money.currency] : []
  },
  request: (resource: Resource, body: Json, problems: ErrorDetail[]) => {
    const { field, currency: currencyField } = moneyOf(resource)!
    const out: Json = { ...body }
    if (currencyField in out) {
      problems.push({
        field: currencyField,
        message: `is part of ${field} in v2 ({"value": ..., "currency": ...})`,
      })
      delete out[currencyField]
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
    out[currencyField] = currency
    return out
  },
  response: (resource: Resource, record: Json) => {
    const { field, currency: currencyField } = moneyOf(resource)!
    if (!(field in record)) return record
    const { [currencyField]: currency, ...rest } = record
    return { ...rest, [field]: { value: record[field], currency } }
  },
  // The engine checks `amount` and `currency` apart; in v2 they are one object. Without it in the
  // body both are missing, and the object is what to ask for; with it, each is one of its members.
  details: (resource: Resource, details: readonly ErrorDetail[], body: Json) => {
    const { field, currency: currencyField } = moneyOf(resource)!
    const whole = !(field in body)
    return details.map(({ field: name, message }) => {
      if (name === field) return { field: whole ? field : `${field}.value`, message }
      if (name === currencyField) return { field: whole ? field : `${field}.currency`, message }
      return { field: name, message }
    })
  },
  schema: (resource: Resource, schema: Json) => {
    const { field, currency: currencyField } = moneyOf(resource)!
    const properties = { ...(schema.properties as Json) }
    delete properties[currencyField]
    properties[field] = MONEY_SCHEMA
    const required = Array.isArray(schema.required)
      ? (schema.required as string[]).filter((r) => r !== currencyField)
      : undefined
    return { ...schema, properties, ...(required ? { required } : {}) }
  },
}
