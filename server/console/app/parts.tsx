/** Small pieces every page uses: links, the alert for a refusal, headings that take focus. */
import type { ComponentChildren } from 'preact'
import { ApiFailure } from './api.ts'
import { navigate, ownClick } from './router.ts'

export function Link(props: { href: string; children: ComponentChildren; class?: string }) {
  return (
    <a
      href={props.href}
      class={props.class}
      onClick={(event) => {
        if (!ownClick(event)) return
        event.preventDefault()
        navigate(props.href)
      }}
    >
      {props.children}
    </a>
  )
}

/** The page's heading; it takes the focus on navigation (app.tsx), so it can be focused. */
export const Title = (props: { children: ComponentChildren }) => (
  <h1 tabIndex={-1} id="page-title">
    {props.children}
  </h1>
)

/** A refusal of the API (or any failure) with its message and a line per detail. */
export function Failure(props: { error: unknown; children?: ComponentChildren }) {
  const { error } = props
  if (!error) return null
  const message = error instanceof Error ? error.message : String(error)
  const details = error instanceof ApiFailure ? error.details : []
  return (
    <div role="alert" class="alert">
      <p>
        {error instanceof ApiFailure ? <strong>{error.code}: </strong> : null}
        {message}
      </p>
      {details.length > 0 ? (
        <ul>
          {details.map((d) => (
            <li key={d.field + d.message}>
              <code>{d.field}</code> {d.message}
            </li>
          ))}
        </ul>
      ) : null}
      {props.children}
    </div>
  )
}

export const Loading = () => (
  <p class="muted" aria-live="polite">
    Loading…
  </p>
)

// An amount in minor units, with as many decimals as its currency has (2 for EUR, 0 for JPY).
function formatMoney(minor: number, currency: string): string {
  try {
    const digits =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2
    return `${(minor / 10 ** digits).toFixed(digits)} ${currency}`
  } catch {
    return `${minor} ${currency}`
  }
}

/** A value as a cell shows it: money with its currency, lists and objects as JSON. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return '—'
  if (typeof value === 'object' && value !== null && 'value' in value && 'currency' in value) {
    const money = value as { value: number; currency: string }
    return formatMoney(money.value, money.currency)
  }
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}
