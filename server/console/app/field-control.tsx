/** One form control per declared field, by its type; the API's complaint about it beside it. */
import type { FieldDeclaration } from '../../../shared/resources/fields.ts'
import type { Collection } from './learn.ts'
import { ReferenceBox } from './reference-box.tsx'

export type Value = string | boolean

/** The form's value of a record's field (money as its amount, its currency apart). */
export function toValue(field: FieldDeclaration, value: unknown): Value {
  if (field.type === 'boolean') return value === true
  if (value === null || value === undefined) return ''
  if (field.currencyField && typeof value === 'object' && 'value' in value) return String(value.value)
  if (field.type === 'json') return JSON.stringify(value, null, 2)
  if (field.type === 'list' && Array.isArray(value)) return value.map(String).join('\n')
  return String(value)
}

/** What the API takes for a form's value; a JSON text that does not parse throws, naming the field. */
export function fromValue(name: string, field: FieldDeclaration, value: Value, currency: string): unknown {
  if (field.type === 'boolean') return value === true
  const text = String(value)
  if (text === '') return field.type === 'text' && !field.nullable ? '' : null
  if (field.type === 'integer') {
    const number = Number(text)
    const amount = Number.isFinite(number) ? number : text
    return field.currencyField ? { value: amount, currency } : amount
  }
  if (field.type === 'list')
    return text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
  if (field.type === 'json') {
    try {
      return JSON.parse(text)
    } catch {
      throw new SyntaxError(`${name} is not valid JSON`)
    }
  }
  return text
}

export function FieldControl(props: {
  name: string
  field: FieldDeclaration
  value: Value
  error?: string
  /** For a reference field: the collection it names, when the token may read it. */
  target?: Collection
  onInput: (value: Value) => void
}) {
  const { name, field, value, error } = props
  const id = `field-${name}`
  const hint = `${id}-error`
  const common = {
    id,
    name,
    required: field.required && field.type !== 'boolean',
    'aria-invalid': error ? true : undefined,
    'aria-describedby': error ? hint : undefined,
  }
  const text = String(value)
  let control: preact.JSX.Element
  if (field.type === 'boolean')
    control = (
      <input
        {...common}
        type="checkbox"
        checked={value === true}
        onChange={(e) => props.onInput(e.currentTarget.checked)}
      />
    )
  else if (field.type === 'enum')
    control = (
      <select {...common} value={text} onChange={(e) => props.onInput(e.currentTarget.value)}>
        {field.required && field.default === undefined ? null : <option value="">—</option>}
        {(field.values ?? []).map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    )
  else if (field.type === 'json' || field.type === 'list')
    control = (
      <textarea
        {...common}
        rows={field.type === 'json' ? 6 : 3}
        value={text}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    )
  else if (field.type === 'reference' && props.target)
    control = (
      <ReferenceBox
        common={common}
        name={name}
        target={props.target}
        value={text}
        onInput={(typed) => props.onInput(typed)}
      />
    )
  else
    control = (
      <input
        {...common}
        type="text"
        inputMode={field.type === 'integer' ? 'numeric' : field.format === 'email' ? 'email' : undefined}
        value={text}
        placeholder={
          field.type === 'timestamp'
            ? '2026-01-31T12:00:00Z'
            : field.type === 'reference'
              ? `${field.to} id`
              : undefined
        }
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    )
  return (
    <div class={field.type === 'boolean' ? 'field check' : 'field'}>
      <div class="field-label">
        <label for={id}>{name}</label>
        {field.required ? (
          <span class="required" aria-hidden="true">
            required
          </span>
        ) : null}
      </div>
      {control}
      {field.type === 'list' ? <p class="muted small">One per line.</p> : null}
      {field.currencyField ? (
        <p class="muted small">In the currency's minor units (1250 is 12.50 EUR).</p>
      ) : null}
      {error ? (
        <p id={hint} class="field-error">
          {error}
        </p>
      ) : null}
    </div>
  )
}
