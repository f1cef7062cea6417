import { defineResource } from './define.ts'
import { enumeration, integer, reference, text } from './fields.ts'

export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled'] as const

export const orders = defineResource({
  name: 'orders',
  singular: 'order',
  prefix: 'ord',
  fields: {
    userId: reference('users', 'usr', { filter: 'eq' }),
    status: enumeration(ORDER_STATUSES, { default: 'pending', filter: 'eq', sort: true }),
    amount: integer({ filter: 'eq+range', sort: true }),
    currency: text({ min: 3, max: 3, format: 'currency', filter: 'eq' }),
  },
})
