/** `/console/c/{collection}/{id}`: one record, its children, and what may be done to it. */
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { Dialog } from '../dialog.tsx'
import { API, allowed, type Collection, type Learned, words } from '../learn.ts'
import { Failure, Link, Loading, show, Title } from '../parts.tsx'
import { navigate } from '../router.ts'
import { Revealed, revealedOf, takeRevealed } from '../secret.tsx'
import { RecordTable } from './list-page.tsx'

function Children(props: { parent: Collection; id: string; child: Collection; scopes: string[] }) {
  const { parent, id, child } = props
  const [records, setRecords] = useState<Record<string, unknown>[] | null>(null)
  const [failure, setFailure] = useState<unknown>(null)
  useEffect(() => {
    api<{ data: Record<string, unknown>[] }>(
      `${API}/${parent.name}/${encodeURIComponent(id)}/${child.name}?limit=20`,
    ).then((answer) => setRecords(answer.body.data), setFailure)
  }, [id])
  return (
    <section aria-labelledby={`children-${child.name}`} class="card">
      <div class="page-head">
        <h2 id={`children-${child.name}`}>{child.name}</h2>
        {allowed(props.scopes, child).write ? (
          <Link class="button" href={`/console/c/${child.name}/new?parent=${encodeURIComponent(id)}`}>
            New {words(child.singular)}
          </Link>
        ) : null}
      </div>
      <Failure error={failure} />
      {records === null ? (
        failure ? null : (
          <Loading />
        )
      ) : records.length === 0 ? (
        <p class="empty">None yet.</p>
      ) : (
        <RecordTable
          collection={child}
          records={records}
          caption={`${child.name} of ${id}`}
          without={child.parent?.field}
        />
      )}
    </section>
  )
}

/** A list field's items, each its own chip; an empty list says `none`. */
function ListItems(props: { items: unknown[] }) {
  if (props.items.length === 0) return <span class="muted">none</span>
  return (
    <ul class="chips">
      {props.items.map((item, index) => (
        // Items may repeat: their place tells them apart, and the list is never reordered.
        <li key={index}>{show(item)}</li>
      ))}
    </ul>
  )
}

export function RecordPage(props: {
  learned: Learned
  scopes: string[]
  collection: Collection
  id: string
}) {
  const { learned, collection, id } = props
  const [record, setRecord] = useState<Record<string, unknown> | null>(null)
  const [failure, setFailure] = useState<unknown>(null)
  const [revealed, setRevealed] = useState(takeRevealed)
  const [confirming, setConfirming] = useState(false)
  const [done, setDone] = useState('')
  const path = `${API}/${collection.name}/${encodeURIComponent(id)}`
  useEffect(() => {
    api(path).then((answer) => setRecord(answer.body), setFailure)
  }, [path])
  const may = allowed(props.scopes, collection)
  const act = async (action: string) => {
    setFailure(null)
    setDone('')
    try {
      const answer = await api(`${path}/${action}`, { method: 'POST', json: {} })
      setRevealed(revealedOf(answer.body, collection.revealed))
      setRecord(answer.body)
      setDone(`${action}: done.`)
    } catch (error) {
      setFailure(error)
    }
  }
  const remove = async () => {
    try {
      await api(path, { method: 'DELETE' })
      navigate(`/console/c/${collection.name}`)
    } catch (error) {
      setConfirming(false)
      setFailure(error)
    }
  }
  const children = learned.collections.filter((c) => c.parent?.collection === collection.name)
  return (
    <>
      <p class="crumbs">
        <Link href={`/console/c/${collection.name}`}>{collection.name}</Link>
      </p>
      <div class="page-head">
        <Title>{id}</Title>
        {(may.write || may.act) && record ? (
          <div class="actions">
            {may.write ? (
              <Link class="button" href={`/console/c/${collection.name}/${encodeURIComponent(id)}/edit`}>
                Edit
              </Link>
            ) : null}
            {may.act
              ? collection.actions.map((action) => (
                  <button
                    type="button"
                    key={action.name}
                    title={action.summary}
                    onClick={() => void act(action.name)}
                  >
                    {action.name}
                  </button>
                ))
              : null}
            {may.write ? (
              <button type="button" class="danger" onClick={() => setConfirming(true)}>
                Delete
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
      <Revealed values={revealed} />
      <p aria-live="polite" class="muted">
        {done}
      </p>
      <Failure error={failure} />
      {record ? (
        <dl class="fields card">
          {[
            'id',
            ...Object.keys(collection.fields).filter((n) => n in record && !collection.revealed.includes(n)),
            'createdAt',
            'updatedAt',
          ].map((name) => {
            const field = collection.fields[name]
            const value = record[name]
            const target = field?.type === 'reference' ? field.to : undefined
            return (
              <div key={name}>
                <dt>{name}</dt>
                <dd>
                  {target && typeof value === 'string' ? (
                    <Link href={`/console/c/${target}/${encodeURIComponent(value)}`}>
                      <code>{value}</code>
                    </Link>
                  ) : field?.type === 'list' && Array.isArray(value) ? (
                    <ListItems items={value} />
                  ) : field?.type === 'json' && value !== null && value !== undefined ? (
                    <pre>{JSON.stringify(value, null, 2)}</pre>
                  ) : (
                    show(value)
                  )}
                </dd>
              </div>
            )
          })}
        </dl>
      ) : failure ? null : (
        <Loading />
      )}
      {record
        ? children.map((child) => (
            <Children key={child.name} parent={collection} id={id} child={child} scopes={props.scopes} />
          ))
        : null}
      <Dialog title={`Delete ${id}?`} open={confirming} onClose={() => setConfirming(false)}>
        <p>This cannot be undone.</p>
        <div class="actions">
          <button type="button" class="danger" onClick={() => void remove()}>
            Delete
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      </Dialog>
    </>
  )
}
