import { defineResource } from './define.ts'
import { integer, reference } from './fields.ts'

export const lineItems = defineResource({
  name: 'line-items',
  singular: 'lineItem',
  prefix: 'lit',
  parent: { collection: 'orders', field: 'orderId' },
  fields: {
    orderId: reference('orders', 'ord', { readOnly: true, filter: 'eq' }),
    productId: reference('products', 'prd', { filter: 'eq' }),
    quantity: integer({ min: 1, max: 1_000_000, filter: 'eq+range', sort: true }),
    unitPrice: integer({ filter: 'eq+range', sort: true }),
  },
})
