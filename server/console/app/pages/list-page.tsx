/** `/console/c/{collection}`: a page of records, with the query (search, filters, sort, cursor) in the URL. */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { API, allowed, type Collection, type Learned, words } from '../learn.ts'
import { Failure, Link, Loading, show, Title } from '../parts.tsx'
import { navigate } from '../router.ts'
import { ListControls, type ListQuery } from './list-controls.tsx'

interface Page {
  data: Record<string, unknown>[]
  pagination: { hasMore: boolean; nextCursor?: string | null }
}

// The cursors of the pages before this one, per list, for `Previous page` (a cursor only leads on).
const earlier = new Map<string, string[]>()

// The columns a table shows: the id, then the fields a table can hold (less `without`), then when it was made.
function columns(collection: Collection, without?: string): string[] {
  const fields = Object.entries(collection.fields)
    .filter(([name, f]) => f.type !== 'json' && f.type !== 'list' && name !== without)
    .map(([name]) => name)
  return [...fields.slice(0, 6), 'createdAt']
}

export function RecordTable(props: {
  collection: Collection
  records: Record<string, unknown>[]
  caption: string
  /** A column not to show: under its parent record, the children's reference to it. */
  without?: string
}) {
  const { collection, records } = props
  // A field a v2 record folds into another (money's currency) is a filter, not a column.
  const shown = columns(collection, props.without).filter((name) => records.some((r) => name in r))
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">id</th>
            {shown.map((name) => (
              <th scope="col" key={name}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {records.map((record) => (
            <tr key={String(record.id)}>
              <th scope="row">
                <Link href={`/console/c/${collection.name}/${encodeURIComponent(String(record.id))}`}>
                  <code>{String(record.id)}</code>
                </Link>
              </th>
              {shown.map((name) => {
                const value = record[name]
                const field = collection.fields[name]
                return (
                  <td key={name} class={typeof value === 'number' ? 'number' : undefined}>
                    {field?.type === 'reference' && typeof value === 'string' ? (
                      <Link href={`/console/c/${field.to}/${encodeURIComponent(value)}`}>
                        <code>{value}</code>
                      </Link>
                    ) : (
                      show(value)
                    )}
                  </td>
                )
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

export function ListPage(props: { learned: Learned; scopes: string[]; collection: Collection; url: URL }) {
  const { collection, url } = props
  const [loaded, setLoaded] = useState<{ search: string; page: Page } | null>(null)
  const [failure, setFailure] = useState<unknown>(null)
  const params = url.searchParams
  const search = url.search
  const path = `/console/c/${collection.name}`
  const query: ListQuery = {
    get: (name) => params.get(name) ?? '',
    set: (changes) => {
      const next = new URLSearchParams(params)
      for (const [name, value] of Object.entries(changes)) {
        if (value) next.set(name, value)
        else next.delete(name)
      }
      // Another query starts at its first page.
      next.delete('cursor')
      earlier.delete(path)
      const text = next.toString()
      navigate(text ? `${path}?${text}` : path)
    },
  }
  useEffect(() => {
    setFailure(null)
    const request = new URLSearchParams(params)
    request.set('limit', '20')
    api<Page>(`${API}/${collection.name}?${request}`).then(
      (answer) => setLoaded({ search, page: answer.body }),
      setFailure,
    )
  }, [search])
  // Only the answer to the query in the URL is shown, never the previous one while it loads.
  const page = loaded?.search === search ? loaded.page : null
  const cursor = params.get('cursor')
  const go = (next: string | null) => {
    const to = new URLSearchParams(params)
    if (next) to.set('cursor', next)
    else to.delete('cursor')
    navigate(`${path}?${to}`)
  }
  const may = allowed(props.scopes, collection)
  const filtered = [...params.keys()].some((k) => k !== 'cursor')
  return (
    <>
      <div class="page-head">
        <Title>{collection.name}</Title>
        {may.write && !collection.parent ? (
          <Link class="button primary" href={`${path}/new`}>
            New {words(collection.singular)}
          </Link>
        ) : null}
      </div>
      <ListControls collection={collection} query={query} />
      <Failure error={failure} />
      {!page ? (
        failure ? null : (
          <Loading />
        )
      ) : page.data.length === 0 ? (
        <div class="empty">
          <p>{filtered ? `No ${collection.name} match this search.` : `No ${collection.name} yet.`}</p>
        </div>
      ) : (
        <RecordTable collection={collection} records={page.data} caption={`${collection.name}, one page`} />
      )}
      <div class="pager">
        <button
          type="button"
          disabled={!cursor}
          onClick={() => {
            const stack = earlier.get(path) ?? []
            go(stack.pop() ?? null)
          }}
        >
          Previous page
        </button>
        <button
          type="button"
          disabled={!page?.pagination.hasMore || !page.pagination.nextCursor}
          onClick={() => {
            if (!page?.pagination.nextCursor) return
            earlier.set(path, [...(earlier.get(path) ?? []), ...(cursor ? [cursor] : [])])
            go(page.pagination.nextCursor)
          }}
        >
          Next page
        </button>
      </div>
    </>
  )
}
