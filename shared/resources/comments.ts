import { defineResource } from './define.ts'
import { reference, text } from './fields.ts'

export const comments = defineResource({
  name: 'comments',
  singular: 'comment',
  prefix: 'cmt',
  parent: { collection: 'posts', field: 'postId' },
  fields: {
    postId: reference('posts', 'pst', { readOnly: true, filter: 'eq' }),
    // Contract: `text` alone is a valid create; the author defaults to the token's user.
    authorId: reference('users', 'usr', { filter: 'eq', nullable: true, defaultToCaller: true }),
    text: text({ max: 10_000, search: true }),
  },
})
