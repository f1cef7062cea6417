import { defineResource } from './define.ts'
import { reference, text } from './fields.ts'

export const addresses = defineResource({
  name: 'addresses',
  singular: 'address',
  prefix: 'adr',
  parent: { collection: 'users', field: 'userId' },
  fields: {
    userId: reference('users', 'usr', { readOnly: true, filter: 'eq' }),
    line1: text({ max: 200, search: true }),
    line2: text({ max: 200, nullable: true }),
    city: text({ max: 100, filter: 'eq', sort: true, search: true }),
    postalCode: text({ max: 20, nullable: true, filter: 'eq' }),
    country: text({ min: 2, max: 2, format: 'country', filter: 'eq', sort: true }),
  },
})
