import type { Resource } from '../../shared/resources/index.ts'
import type { ParentRef } from '../resources/context.ts'
import { prepareCreate } from '../resources/writes.ts'
import type { Tx } from '../store/store.ts'
import type { Entity } from '../store/types.ts'
import { systemPrincipal } from './system.ts'
import { AdminConflictError, adminEngine, createUser } from './users.ts'

/** The built-in example's collections the demo records belong to. */
const DEMO_COLLECTIONS = ['products', 'orders', 'line-items', 'posts', 'comments'] as const

/** Demo logins. Fixed so that the README's tour can name them; only for demo databases. */
export const DEMO_USERS = [
  {
    org: 'Acme',
    email: 'alice@acme.example',
    name: 'Alice Admin',
    role: 'admin',
    password: 'alice-demo-pass',
  },
  { org: 'Acme', email: 'mia@acme.example', name: 'Mia Member', role: 'member', password: 'mia-demo-pass' },
  {
    org: 'Acme',
    email: 'victor@acme.example',
    name: 'Victor Viewer',
    role: 'viewer',
    password: 'victor-demo-pass',
  },
  { org: 'Globex', email: 'bob@globex.example', name: 'Bob Admin', role: 'admin', password: 'bob-demo-pass' },
] as const

const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled'] as const

interface SeedResult {
  created: boolean
  /** The demo records are the built-in example's: false for a schema without its collections. */
  records: boolean
  orgs: { id: string; name: string }[]
  users: (typeof DEMO_USERS)[number][]
}

const hasDemoCollections = (store: Tx) => DEMO_COLLECTIONS.every((name) => store.schema.byName(name))

/** Loads the demo data once; a second run finds it and changes nothing. */
export async function seed(store: Tx): Promise<SeedResult> {
  const acme = await store.orgs.find('Acme')
  if (acme && !(await store.users.exists(acme.id, DEMO_USERS[0].email))) {
    throw new AdminConflictError(
      'an organization named Acme exists without the demo data; seed a fresh database',
    )
  }
  if (acme) {
    const found = await Promise.all(['Acme', 'Globex'].map((name) => store.orgs.find(name)))
    const orgs = found.filter((o) => o !== null)
    return { created: false, records: hasDemoCollections(store), orgs, users: [...DEMO_USERS] }
  }
  const orgs = [await store.orgs.create('Acme'), await store.orgs.create('Globex')]
  const userIds = new Map<string, string>()
  for (const user of DEMO_USERS) userIds.set(user.email, (await createUser(store, user)).id)
  // Demo records are the built-in example's: a schema of one's own gets the organizations and users.
  const demo = DEMO_COLLECTIONS.map((name) => store.schema.byName(name))
  if (!hasDemoCollections(store)) return { created: true, records: false, orgs, users: [...DEMO_USERS] }
  const [products, orders, lineItems, posts, comments] = demo as [
    Resource,
    Resource,
    Resource,
    Resource,
    Resource,
  ]
  await store.transaction(async (tx) => {
    const engine = adminEngine(tx)
    for (const [n, org] of orgs.entries()) {
      const principal = systemPrincipal(store.schema, org.id)
      // Every demo record in this one transaction, none in one of its own. The admin engine has no
      // hooks, so there is nothing to check outside the transaction first.
      const create = (resource: Resource, body: unknown, parent?: ParentRef) =>
        prepareCreate(engine, principal, resource, body, parent).apply(engine)
      const owner = userIds.get(DEMO_USERS.find((u) => u.org === org.name)!.email)!
      const catalog: Entity[] = []
      for (const [i, name] of ['Widget', 'Gadget', 'Gizmo', 'Doohickey', 'Sprocket'].entries()) {
        catalog.push(
          await create(products, {
            name: `${name} ${n === 0 ? 'Pro' : 'Lite'}`,
            sku: `${name.slice(0, 3).toUpperCase()}-${100 + i}`,
            description: `A ${name.toLowerCase()} for everyday use.`,
            price: 500 + i * 250,
            currency: 'EUR',
          }),
        )
      }
      for (let i = 0; i < 12; i++) {
        const product = catalog[i % catalog.length]!
        const quantity = (i % 3) + 1
        const order = await create(orders, {
          userId: owner,
          status: STATUSES[i % STATUSES.length],
          amount: (product.price as number) * quantity,
          currency: 'EUR',
        })
        await create(
          lineItems,
          { productId: product.id, quantity, unitPrice: product.price },
          { collection: 'orders', id: order.id as string },
        )
      }
      for (let i = 0; i < 3; i++) {
        const post = await create(posts, {
          authorId: owner,
          title: `${org.name} update #${i + 1}`,
          body: `News from ${org.name}: release ${i + 1} is out.`,
          published: i < 2,
        })
        await create(
          comments,
          { authorId: owner, text: `Looking forward to #${i + 2}.` },
          { collection: 'posts', id: post.id as string },
        )
      }
    }
  })
  return { created: true, records: true, orgs, users: [...DEMO_USERS] }
}
