/**
 * The collections the console shows, learned from /api/v2/openapi.json by the reader the CLI uses
 * (shared/learn/from-openapi.ts). The document is kept in sessionStorage with its ETag and
 * revalidated with If-None-Match on each start of the console.
 */
import { type LearnedAction, learnFromDocument } from '../../../shared/learn/from-openapi.ts'
import type { FieldDeclaration } from '../../../shared/resources/fields.ts'

export const API = '/api/v2'
const KEPT = 'api-console:openapi'

export interface Collection {
  name: string
  singular: string
  parent?: { collection: string; field: string }
  fields: Record<string, FieldDeclaration>
  actions: LearnedAction[]
  /** The collection whose scopes guard this one's (a delivery's are its webhook endpoint's). */
  guard: string
  /** Whether its records are changed through the API; a delivery's only by its action. */
  writable: boolean
  /** Fields the API shows once (a secret), in the answer to the create or an action. */
  revealed: string[]
}

export interface Learned {
  collections: Collection[]
  /** Every scope the service knows (its OAuth metadata): the console asks for all of them. */
  scopes: string[]
}

type Operation = { security?: { oauth2?: string[] }[] }

/** Which scopes guard a collection, and whether its records are written, as its record's path says. */
function guardOf(document: unknown, name: string): { guard: string; writable: boolean } {
  const paths = (document as { paths?: Record<string, Record<string, Operation>> }).paths
  const one = paths?.[`${API}/${name}/{id}`]
  const read = one?.get?.security?.[0]?.oauth2?.find((scope) => scope.startsWith('read:'))
  return { guard: read ? read.slice('read:'.length) : name, writable: one ? 'patch' in one : true }
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
      ...guardOf(document, name),
    })),
    scopes: metadata.scopes_supported ?? [],
  }
}

/** `lineItem` -> `line item`: how a singular reads in a heading or a button. */
export const words = (name: string) => name.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`)
export const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)

/** What the token's scopes allow on a collection: `write` its actions, `change` its records too. */
export function allowed(scopes: readonly string[], collection: Pick<Collection, 'guard' | 'writable'>) {
  const write = scopes.includes(`write:${collection.guard}`)
  return {
    read: scopes.includes(`read:${collection.guard}`),
    write,
    change: write && collection.writable,
  }
}
