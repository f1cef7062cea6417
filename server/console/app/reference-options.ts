/**
 * The records a reference field's text box offers: up to 20 of the referenced collection, read
 * with the user's token, searched for what was typed when that collection has searchable fields.
 */
import { useEffect, useState } from 'preact/hooks'
import { api } from './api.ts'
import { API, type Collection } from './learn.ts'

/** One record offered: its id (the value the field takes) and the text it is known by. */
export interface ReferenceOption {
  id: string
  label: string
}

const LIMIT = 20
// Typing fast sends one request, not one per key.
const DEBOUNCE_MS = 250

// The field a record is known by: its first searchable text field (name, title), else its first text field.
function labelField(target: Collection): string | undefined {
  const texts = Object.entries(target.fields).filter(([, f]) => f.type === 'text')
  return (texts.find(([, f]) => f.search) ?? texts[0])?.[0]
}

/**
 * The options for a reference to `target` while its box holds `typed`; null while there are none
 * to offer (the token may not read `target`, or the API refused), so the box stays a plain one.
 */
export function useReferenceOptions(target: Collection | undefined, typed: string): ReferenceOption[] | null {
  const [options, setOptions] = useState<ReferenceOption[] | null>(null)
  const searchable = target ? Object.values(target.fields).some((f) => f.search) : false
  // An id chosen from the options needs no new search: the list it came from stays.
  const chosen = options?.some((o) => o.id === typed) ?? false
  const query = searchable && !chosen ? typed.trim() : ''
  useEffect(() => {
    if (!target) return
    let current = true
    const timer = setTimeout(() => {
      const params = new URLSearchParams({ limit: String(LIMIT) })
      if (query) params.set('q', query)
      const label = labelField(target)
      api<{ data: Record<string, unknown>[] }>(`${API}/${target.name}?${params}`).then(
        (answer) => {
          if (!current) return
          setOptions(
            answer.body.data.map((record) => ({
              id: String(record.id),
              label: label && typeof record[label] === 'string' ? record[label] : String(record.id),
            })),
          )
        },
        () => {
          if (current) setOptions(null)
        },
      )
    }, DEBOUNCE_MS)
    return () => {
      current = false
      clearTimeout(timer)
    }
  }, [target?.name, query])
  return target ? options : null
}
