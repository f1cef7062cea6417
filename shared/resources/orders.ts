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
  actions: {
    cancel: {
      field: 'status',
      from: ['pending', 'paid'],
      to: 'cancelled',
      past: 'cancelled',
      summary: 'Cancel an order that is pending or paid',
    },
    ship: { field: 'status', from: ['paid'], to: 'shipped', past: 'shipped', summary: 'Ship a paid order' },
    deliver: {
      field: 'status',
      from: ['shipped'],
      to: 'delivered',
      past: 'delivered',
      summary: 'Mark a shipped order delivered',
    },
  },
})
