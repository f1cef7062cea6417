import { defineResource } from './define.ts'
import { boolean, integer, text } from './fields.ts'

export const products = defineResource({
  name: 'products',
  singular: 'product',
  prefix: 'prd',
  fields: {
    name: text({ max: 200, sort: true, search: true }),
    sku: text({ max: 64, filter: 'eq', sort: true, search: true, unique: true }),
    description: text({ max: 10_000, nullable: true, search: true }),
    price: integer({ filter: 'eq+range', sort: true }),
    currency: text({ min: 3, max: 3, format: 'currency', filter: 'eq' }),
    active: boolean({ default: true, filter: 'eq' }),
  },
})
