import { defineResource } from './define.ts'
import { boolean, reference, text } from './fields.ts'

export const posts = defineResource({
  name: 'posts',
  singular: 'post',
  prefix: 'pst',
  fields: {
    authorId: reference('users', 'usr', { filter: 'eq' }),
    title: text({ max: 300, sort: true, search: true }),
    body: text({ max: 100_000, min: 0, default: '', search: true }),
    published: boolean({ default: false, filter: 'eq' }),
  },
  actions: {
    publish: {
      field: 'published',
      from: [false],
      to: true,
      past: 'published',
      summary: 'Publish a draft post',
    },
    unpublish: {
      field: 'published',
      from: [true],
      to: false,
      past: 'unpublished',
      summary: 'Take a published post back to draft',
    },
  },
})
