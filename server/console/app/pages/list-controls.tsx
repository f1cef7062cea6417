/** The controls above a list: search, a control per declared filter, and the sort order. */
import type { FieldDeclaration } from '../../../../shared/resources/fields.ts'
import { type Collection, snake } from '../learn.ts'

export interface ListQuery {
  get: (name: string) => string
  set: (changes: Record<string, string>) => void
}

function FilterInput(props: { label: string; param: string; field: FieldDeclaration; query: ListQuery }) {
  const { label, param, field, query } = props
  const id = `filter-${param}`
  const value = query.get(param)
  const apply = (next: string) => query.set({ [param]: next })
  const choices =
    field.type === 'enum' ? (field.values ?? []) : field.type === 'boolean' ? ['true', 'false'] : null
  return (
    <div class="control">
      <label for={id}>{label}</label>
      {choices ? (
        <select id={id} value={value} onChange={(e) => apply(e.currentTarget.value)}>
          <option value="">any</option>
          {choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          type="text"
          inputMode={field.type === 'integer' ? 'numeric' : undefined}
          value={value}
          placeholder={
            field.type === 'timestamp' ? '2026-01-31T00:00:00Z' : field.type === 'reference' ? 'id' : ''
          }
          onChange={(e) => apply(e.currentTarget.value.trim())}
        />
      )}
    </div>
  )
}

// The sort orders a list offers: newest and oldest first, and each sortable field both ways.
function sortChoices(collection: Collection): { value: string; label: string }[] {
  const choices = [
    { value: '', label: 'Newest first' },
    { value: 'created_at', label: 'Oldest first' },
  ]
  for (const [name, field] of Object.entries(collection.fields))
    if (field.sort)
      choices.push(
        { value: snake(name), label: `${name}, ascending` },
        { value: `-${snake(name)}`, label: `${name}, descending` },
      )
  return choices
}

export function ListControls(props: { collection: Collection; query: ListQuery }) {
  const { collection, query } = props
  const searchable = Object.values(collection.fields).some((f) => f.search)
  const filters = Object.entries(collection.fields).filter(([, f]) => f.filter)
  return (
    <form
      class="controls"
      aria-label={`Find ${collection.name}`}
      onSubmit={(event) => {
        // Enter in a box applies what was typed (its change event has already run).
        event.preventDefault()
      }}
    >
      {searchable ? (
        <div class="control wide">
          <label for="search">Search</label>
          <input
            id="search"
            type="search"
            value={query.get('q')}
            onChange={(e) => query.set({ q: e.currentTarget.value.trim() })}
          />
        </div>
      ) : null}
      {filters.flatMap(([name, field]) => {
        const param = snake(name)
        const eq = field.filter === 'eq' || field.filter === 'eq+range'
        const range = field.filter === 'range' || field.filter === 'eq+range'
        return [
          eq ? <FilterInput key={param} label={name} param={param} field={field} query={query} /> : null,
          range ? (
            <FilterInput
              key={`${param}_gte`}
              label={`${name} from`}
              param={`${param}_gte`}
              field={field}
              query={query}
            />
          ) : null,
          range ? (
            <FilterInput
              key={`${param}_lte`}
              label={`${name} to`}
              param={`${param}_lte`}
              field={field}
              query={query}
            />
          ) : null,
        ]
      })}
      <div class="control">
        <label for="sort">Sort</label>
        <select
          id="sort"
          value={query.get('sort')}
          onChange={(e) => query.set({ sort: e.currentTarget.value })}
        >
          {sortChoices(collection).map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" class="visually-hidden" tabIndex={-1}>
        Apply
      </button>
    </form>
  )
}
