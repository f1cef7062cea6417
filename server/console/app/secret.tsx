/** A value the API reveals once (a secret), shown until the page is left, with a Copy button. */
import { useState } from 'preact/hooks'

let pending: Record<string, string> | null = null

/** Hands revealed values to the next page (the record's, after a create): kept in memory only. */
export const revealNext = (values: Record<string, string>) => {
  pending = values
}
/** What the previous page handed over, once. */
export const takeRevealed = () => {
  const values = pending
  pending = null
  return values
}

/** The values of an answer its collection reveals once (a secret), by field. */
export function revealedOf(
  record: Record<string, unknown>,
  revealed: readonly string[],
): Record<string, string> {
  const found: Record<string, string> = {}
  for (const name of revealed) if (typeof record[name] === 'string') found[name] = record[name]
  return found
}

export function Revealed(props: { values: Record<string, string> | null }) {
  const [copied, setCopied] = useState('')
  if (!props.values || Object.keys(props.values).length === 0) return null
  return (
    <section class="revealed" aria-labelledby="revealed-heading">
      <h2 id="revealed-heading">Copy the secret now</h2>
      <p>It is shown this once: the service keeps only a hash of it.</p>
      {Object.entries(props.values).map(([name, value]) => (
        <div class="secret" key={name}>
          <label for={`revealed-${name}`}>{name}</label>
          <input id={`revealed-${name}`} readOnly value={value} />
          <button
            type="button"
            onClick={() =>
              navigator.clipboard.writeText(value).then(
                () => setCopied(name),
                () => setCopied(''),
              )
            }
          >
            Copy
          </button>
          <span aria-live="polite">{copied === name ? 'Copied.' : ''}</span>
        </div>
      ))}
    </section>
  )
}
