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

/** The string values of an answer that its declaration does not list: the revealed ones. */
export function revealedOf(
  record: Record<string, unknown>,
  declared: readonly string[],
): Record<string, string> {
  const found: Record<string, string> = {}
  for (const [key, value] of Object.entries(record))
    if (
      !declared.includes(key) &&
      !['id', 'createdAt', 'updatedAt'].includes(key) &&
      typeof value === 'string'
    )
      found[key] = value
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
