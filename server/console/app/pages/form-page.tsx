/**
 * `/console/c/{collection}/new` and `.../{id}/edit`: a form generated from the declaration. Edit
 * sends only the changed fields as PATCH with If-Match; a 412 keeps what was typed and offers
 * Reload, which loads the current version and keeps the changed fields over it.
 */
import { useEffect, useState } from 'preact/hooks'
import type { FieldDeclaration } from '../../../../shared/resources/fields.ts'
import { ApiFailure, api } from '../api.ts'
import { FieldControl, fromValue, toValue, type Value } from '../field-control.tsx'
import { API, allowed, type Collection, type Learned, words } from '../learn.ts'
import { Failure, Link, Loading, Title } from '../parts.tsx'
import { navigate } from '../router.ts'
import { revealedOf, revealNext } from '../secret.tsx'

type Values = Record<string, Value>

const currencyOf = (record: Record<string, unknown> | null, name: string) => {
  const money = record?.[name]
  return typeof money === 'object' && money !== null && 'currency' in money ? String(money.currency) : 'EUR'
}

export function FormPage(props: {
  learned: Learned
  scopes: string[]
  collection: Collection
  url: URL
  id?: string
}) {
  const { collection, id } = props
  const parentId = props.url.searchParams.get('parent')
  const writable = Object.entries(collection.fields).filter(([, f]) => !f.readOnly)
  const blank = (): Values =>
    Object.fromEntries(
      writable.map(([name, f]) => [name, f.default === undefined ? toValue(f, null) : toValue(f, f.default)]),
    )
  const [values, setValues] = useState<Values | null>(id ? null : blank())
  const [currencies, setCurrencies] = useState<Record<string, string>>({})
  const [loaded, setLoaded] = useState<{ record: Record<string, unknown>; etag: string | null } | null>(null)
  const [changed, setChanged] = useState<Set<string>>(new Set())
  const [failure, setFailure] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const path = id ? `${API}/${collection.name}/${encodeURIComponent(id)}` : ''

  const load = async (keep: Values = {}) => {
    const answer = await api(path)
    const record = answer.body
    setLoaded({ record, etag: answer.etag })
    setValues({
      ...Object.fromEntries(writable.map(([name, f]) => [name, toValue(f, record[name])])),
      ...keep,
    })
    setCurrencies(
      Object.fromEntries(
        writable.filter(([, f]) => f.currencyField).map(([n]) => [n, currencyOf(record, n)]),
      ),
    )
  }
  useEffect(() => {
    if (id) load().catch(setFailure)
  }, [id])

  const errors = new Map<string, string>()
  if (failure instanceof ApiFailure)
    for (const detail of failure.details)
      errors.set(detail.field.split(/[.[]/)[0] ?? detail.field, detail.message)

  const submit = async () => {
    if (!values) return
    setFailure(null)
    setBusy(true)
    try {
      const body: Record<string, unknown> = {}
      for (const [name, field] of writable)
        if (!id || changed.has(name))
          body[name] = fromValue(name, field, values[name] ?? '', currencies[name] ?? 'EUR')
      if (!id)
        for (const [name, field] of writable) if (body[name] === null && !field.nullable) delete body[name]
      const parent = collection.parent
      const answer = id
        ? await api(path, {
            method: 'PATCH',
            json: body,
            headers: loaded?.etag ? { 'If-Match': loaded.etag } : {},
          })
        : await api(
            parent && parentId
              ? `${API}/${parent.collection}/${encodeURIComponent(parentId)}/${collection.name}`
              : `${API}/${collection.name}`,
            { method: 'POST', json: body },
          )
      revealNext(revealedOf(answer.body, collection.revealed))
      navigate(`/console/c/${collection.name}/${encodeURIComponent(String(answer.body.id))}`)
    } catch (error) {
      setFailure(error)
    } finally {
      setBusy(false)
    }
  }
  const reload = () => {
    setFailure(null)
    const typed = Object.fromEntries([...changed].map((name) => [name, values?.[name] ?? '']))
    load(typed).catch(setFailure)
  }
  const readableTarget = (field: FieldDeclaration) => {
    const target =
      field.type === 'reference' ? props.learned.collections.find((c) => c.name === field.to) : undefined
    return target && allowed(props.scopes, target).read ? target : undefined
  }
  const title = id ? `Edit ${id}` : `New ${words(collection.singular)}`
  const stale = failure instanceof ApiFailure && failure.status === 412
  return (
    <>
      <p class="crumbs">
        <Link href={`/console/c/${collection.name}`}>{collection.name}</Link>
        {id ? (
          <>
            {' / '}
            <Link href={`/console/c/${collection.name}/${encodeURIComponent(id)}`}>{id}</Link>
          </>
        ) : null}
      </p>
      <Title>{title}</Title>
      {stale ? (
        <div role="alert" class="alert">
          <p>
            Someone changed this record since it was loaded; nothing was saved. Reload loads the current
            version and keeps what you changed here.
          </p>
          <button type="button" onClick={reload}>
            Reload
          </button>
        </div>
      ) : (
        <Failure error={failure} />
      )}
      {parentId && collection.parent ? (
        <p class="muted">
          In <code>{parentId}</code> ({collection.parent.collection}).
        </p>
      ) : null}
      {!values ? (
        failure ? null : (
          <Loading />
        )
      ) : (
        <form
          class="record-form card"
          noValidate
          onSubmit={(event) => {
            event.preventDefault()
            void submit()
          }}
        >
          {writable.map(([name, field]) => (
            <div key={name}>
              <FieldControl
                name={name}
                field={field}
                value={values[name] ?? ''}
                error={errors.get(name)}
                target={readableTarget(field)}
                onInput={(value) => {
                  setValues({ ...values, [name]: value })
                  setChanged(new Set(changed).add(name))
                }}
              />
              {field.currencyField ? (
                <div class="field">
                  <label for={`field-${name}-currency`}>{name} currency</label>
                  <input
                    id={`field-${name}-currency`}
                    value={currencies[name] ?? 'EUR'}
                    maxLength={3}
                    onInput={(e) => {
                      setCurrencies({ ...currencies, [name]: e.currentTarget.value.toUpperCase() })
                      setChanged(new Set(changed).add(name))
                    }}
                  />
                </div>
              ) : null}
            </div>
          ))}
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {id ? 'Save' : 'Create'}
            </button>
          </div>
        </form>
      )}
    </>
  )
}
