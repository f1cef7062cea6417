/**
 * The built-in example is a schema file like any other (shared/example/shop.schema.json): the
 * resources it builds are the ones the service has always served, and the declaration a schema in
 * force gives back is the file, so `schema print` and the recorded schema say what was declared.
 */
import { describe, expect, it } from 'bun:test'
import shop from '../../shared/example/shop.schema.json' with { type: 'json' }
import { exampleSchema } from '../../shared/resources/index.ts'
import {
  declarationOf,
  resourceDeclarationOf,
  resourceFromDeclaration,
  SERVICE_RESOURCES,
} from '../../shared/schema/declaration.ts'

const plain = (value: unknown) => JSON.parse(JSON.stringify(value))

describe('the built-in example as a schema file', () => {
  const schema = exampleSchema()

  it('declares the example collections, and the service adds its own around them', () => {
    expect(schema.resources.map((r) => r.name)).toEqual([
      'users',
      'addresses',
      'products',
      'orders',
      'line-items',
      'posts',
      'comments',
      'events',
      'webhook-endpoints',
      'deliveries',
      'oauth-clients',
    ])
    expect(schema.resources.filter((r) => r.service).map((r) => r.name)).toEqual(
      SERVICE_RESOURCES.map((r) => r.name),
    )
  })

  it('gives back the file it was built from as its declaration', () => {
    expect(plain(declarationOf(schema))).toEqual(plain(shop))
  })

  it('builds the same resource again from each declaration', () => {
    const prefixOf = (name: string) => schema.byName(name)!.prefix
    for (const resource of schema.resources.filter((r) => !r.service)) {
      const again = resourceFromDeclaration(resource.name, resourceDeclarationOf(resource), prefixOf)
      expect(plain(again)).toEqual(plain(resource))
    }
  })

  it('adds a nested collection its parent field when the declaration leaves it out', () => {
    const { postId: _, ...fields } = resourceDeclarationOf(schema.byName('comments')!).fields
    const comments = resourceFromDeclaration(
      'comments',
      { ...resourceDeclarationOf(schema.byName('comments')!), fields },
      (name) => schema.byName(name)!.prefix,
    )
    expect(comments.fields.postId?.readOnly).toBe(true)
    expect(comments.fields.postId?.references).toBe('posts')
    expect(comments.filterable).toContain('postId')
  })
})
