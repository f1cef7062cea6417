import { defineResource } from './define.ts'
import { enumeration, text } from './fields.ts'

const ROLES = ['admin', 'member', 'viewer'] as const

export const users = defineResource({
  name: 'users',
  singular: 'user',
  prefix: 'usr',
  service: true,
  fields: {
    name: text({ max: 200, sort: true, search: true }),
    email: text({ max: 254, format: 'email', filter: 'eq', sort: true, search: true, unique: true }),
    // A role grants access: a member with write:users must not make anyone (herself included) an admin.
    role: enumeration(ROLES, { default: 'member', filter: 'eq', sort: true, privileged: true }),
  },
})
