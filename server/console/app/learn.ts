/**
 * The collections the console shows, learned from /api/v2/openapi.json by the reader the CLI uses
 * (shared/learn/from-openapi.ts). The document is kept in sessionStorage with its ETag and
 * revalidated with If-None-Match on each start of the console.
 */
import {
  type LearnedAccess,
  type LearnedAction,
  learnFromDocument,
} from '../../../shared/learn/from-openapi.ts'
import type { FieldDeclaration } from '../../../shared/resources/fields.ts'

export const API = '/api/v2'
const KEPT = 'api-console:openapi'

export interface Collection {
  name: string
  singular: string
  parent?: { collection: string; field: string }
  fields: Record<string, FieldDeclaration>
  actions: LearnedAction[]
  /** Fields the API shows once (a secret), in the answer to the create or an action. */
  revealed: string[]
  access: LearnedAccess
}

export interface Learned {
  collections: Collection[]
  /** Every scope the service knows (its OAuth metadata): the console asks for all of them. */
  scopes: string[]
}

/** Reads the collections and the scopes the service offers. */
export async function learn(): Promise<Learned> {
  const kept = JSON.parse(sessionStorage.getItem(KEPT) ?? 'null') as {
    etag: string
    document: unknown
  } | null
  const [response, metadata] = await Promise.all([
    fetch(`${API}/openapi.json`, { headers: kept ? { 'If-None-Match': kept.etag } : {} }),
    fetch('/.well-known/oauth-authorization-server').then(
      (r) => r.json() as Promise<{ scopes_supported?: string[] }>,
    ),
  ])
  let document = kept?.document
  if (response.status !== 304) {
    if (!response.ok) throw new Error(`The API description could not be read (${response.status}).`)
    document = await response.json()
    const etag = response.headers.get('etag')
    try {
      if (etag) sessionStorage.setItem(KEPT, JSON.stringify({ etag, document }))
    } catch {
      // A full sessionStorage only costs the next start a whole download.
    }
  }
  const read = learnFromDocument(document, API, [])
  return {
    collections: Object.entries(read.resources).map(([name, r]) => ({
      name,
      singular: r.singular,
      ...(r.parent ? { parent: r.parent } : {}),
      fields: r.fields,
      actions: read.actions[name] ?? [],
      revealed: read.revealed?.[name] ?? [],
      access: read.access?.[name] ?? { read: `read:${name}`, write: `write:${name}`, writable: true },
    })),
    scopes: metadata.scopes_supported ?? [],
  }
}

/** `lineItem` -> `line item`: how a singular reads in a heading or a button. */
export const words = (name: string) => name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)
export const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/**
 * What the token's scopes allow on a collection: `write` makes, changes and deletes records (of a
 * writable collection), `act` runs its actions (a read-only one may have some: a delivery's retry).
 */
export function allowed(scopes: readonly string[], collection: Collection) {
  const write = scopes.includes(collection.access.write)
  return {
    read: scopes.includes(collection.access.read),
    write: write && collection.access.writable,
    act: write,
  }
}
