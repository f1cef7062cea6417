import { defineResource } from './define.ts'
import { reference, text } from './fields.ts'

export const comments = defineResource({
  name: 'comments',
  singular: 'comment',
  prefix: 'cmt',
  parent: { collection: 'posts', field: 'postId' },
  fields: {
    postId: reference('posts', 'pst', { readOnly: true, filter: 'eq' }),
    authorId: reference('users', 'usr', { filter: 'eq' }),
    text: text({ max: 10_000, search: true }),
  },
})
