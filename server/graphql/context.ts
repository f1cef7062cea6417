import DataLoader from 'dataloader'
import { ApiError, unauthorized } from '../../shared/errors.ts'
import type { ListQuery } from '../../shared/query/types.ts'
import type { Resource } from '../../shared/resources/index.ts'
import { bearerToken, type Principal, type TokenVerifier } from '../auth/tokens.ts'
import type { EngineContext } from '../resources/context.ts'
import type { EventFeed } from '../resources/event-feed.ts'
import { type Entity, getRecord } from '../resources/reads.ts'
import { getRecords, listChildPages, type RecordPage } from '../resources/related.ts'
import { fromApiError } from './errors.ts'

/** What authentication found: a principal, or the 401 it would be over REST. */
export type Authentication = { principal: Principal } | { error: ApiError }

/** Verifies `Authorization: Bearer <token>` as REST does; never throws for a bad token. */
export async function authenticate(verifier: TokenVerifier, header: string | null): Promise<Authentication> {
  try {
    return { principal: await verifier.verify(bearerToken(header)) }
  } catch (error) {
    if (error instanceof ApiError) return { error }
    throw error
  }
}

/**
 * Per-request batching of related records (DataLoader): every `order.user` of one request is read
 * in one statement, every first page of `order.lineItems` with the same arguments in another.
 */
export class Loaders {
  private readonly records = new Map<string, DataLoader<string, Entity | null>>()
  private readonly nodes = new Map<string, DataLoader<string, Entity>>()
  private readonly pages = new Map<string, DataLoader<string, RecordPage>>()

  constructor(
    private readonly engine: EngineContext,
    private readonly principal: () => Principal,
  ) {}

  /** The organization's record of `resource` by id; null when there is none. */
  record(resource: Resource): DataLoader<string, Entity | null> {
    let loader = this.records.get(resource.name)
    if (!loader) {
      loader = new DataLoader(async (ids) => {
        const found = await getRecords(this.engine, this.principal(), resource, ids)
        return ids.map((id) => found.get(id) ?? null)
      })
      this.records.set(resource.name, loader)
    }
    return loader
  }

  /**
   * Records of `resource` by id, each as `order(id:)` answers it (`node`, `nodes`): the ids of one
   * type are read in one statement; only an id it does not find is looked up alone, to fail as
   * the singular field does (NOT_FOUND, or FORBIDDEN for another organization's record).
   */
  node(resource: Resource): DataLoader<string, Entity> {
    let loader = this.nodes.get(resource.name)
    if (!loader) {
      loader = new DataLoader(async (ids) => {
        const principal = this.principal()
        const found = await getRecords(this.engine, principal, resource, ids)
        // DataLoader rejects the load of a key whose value is an Error.
        return Promise.all(
          ids.map(
            (id) =>
              found.get(id) ?? getRecord(this.engine, principal, resource, id).catch((error: Error) => error),
          ),
        )
      })
      this.nodes.set(resource.name, loader)
    }
    return loader
  }

  /** The first page of `child` records under a parent id, for one set of list arguments. */
  childPage(child: Resource, query: ListQuery): DataLoader<string, RecordPage> {
    const key = `${child.name}\n${JSON.stringify(query)}`
    let loader = this.pages.get(key)
    if (!loader) {
      loader = new DataLoader(async (parentIds) => {
        const pages = await listChildPages(this.engine, this.principal(), child, parentIds, query)
        return parentIds.map((id) => pages.get(id)!)
      })
      this.pages.set(key, loader)
    }
    return loader
  }
}

export interface GraphQLContext {
  engine: EngineContext
  feed: EventFeed
  /** The caller; throws UNAUTHENTICATED when the request has no valid, unexpired token. */
  principal: () => Principal
  loaders: Loaders
  /**
   * Whether the response cache may keep the answer as far as the records shown are concerned:
   * cleared when one changes without an event (server/graphql/kept-answers.ts).
   */
  answer: { keepable: boolean }
}

/**
 * The context of one operation. Authentication is checked when a field first needs the principal,
 * so a request without a valid token answers 200 with `UNAUTHENTICATED` errors and `data: null`
 * (contract: errors while executing are 200), while introspection needs no token.
 */
export function operationContext(
  engine: EngineContext,
  feed: EventFeed,
  auth: Authentication,
): GraphQLContext {
  const principal = (): Principal => {
    if ('error' in auth) throw fromApiError(auth.error)
    // A WebSocket keeps the principal of its connection_init: check expiry per operation.
    if (auth.principal.expiresAt * 1000 <= engine.clock())
      throw fromApiError(unauthorized('the token has expired'))
    return auth.principal
  }
  return { engine, feed, principal, loaders: new Loaders(engine, principal), answer: { keepable: true } }
}
