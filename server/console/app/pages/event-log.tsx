/**
 * `/console/events`: the organization's events as they happen. The latest page comes from REST,
 * then the GraphQL subscription `events` over SSE (a fetch with the bearer header: EventSource
 * cannot send one) streams the rest; a dropped stream reconnects with `after`, missing none.
 */

import { useEffect, useState } from 'preact/hooks'
import { serverSentEvents } from '../../../../shared/server-sent-events.ts'
import { api } from '../api.ts'
import { refresh, session } from '../auth.ts'
import { API, type Learned } from '../learn.ts'
import { Failure, Link, Title } from '../parts.tsx'

interface LoggedEvent {
  id: string
  type: string
  resourceId: string
  createdAt: string
}

const SUBSCRIPTION = 'subscription ($after: ID) { events(after: $after) { id type resourceId createdAt } }'

// Reads an SSE stream of GraphQL results, calling `each` per event; resolves when it ends.
async function stream(after: string | undefined, signal: AbortSignal, each: (event: LoggedEvent) => void) {
  const response = await fetch('/graphql', {
    method: 'POST',
    signal,
    headers: {
      Accept: 'text/event-stream',
      'Content-Type': 'application/json',
      Authorization: `Bearer ${session()?.accessToken ?? ''}`,
    },
    body: JSON.stringify({ query: SUBSCRIPTION, variables: after ? { after } : {} }),
  })
  // An expired token: renewed, and the loop below connects again with the new one.
  if (response.status === 401 && (await refresh())) return
  if (!response.ok || !response.body) throw new Error(`The event stream answered ${response.status}.`)
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  // A read that fails ends the messages; aborted, the caller's loop sees the signal and stops.
  for await (const message of serverSentEvents(reader)) {
    if (!message.data) continue
    const result = JSON.parse(message.data) as {
      data?: { events?: LoggedEvent }
      errors?: { message: string }[]
    }
    if (result.errors?.length) throw new Error(result.errors.map((e) => e.message).join('; '))
    if (result.data?.events) each(result.data.events)
  }
}

export function EventLog(props: { learned: Learned; scopes: string[] }) {
  const [events, setEvents] = useState<LoggedEvent[]>([])
  const [failure, setFailure] = useState<unknown>(null)
  const [live, setLive] = useState(false)
  useEffect(() => {
    const control = new AbortController()
    let last: string | undefined
    const run = async () => {
      const first = await api<{ data: LoggedEvent[] }>(`${API}/events?limit=20`)
      setEvents(first.body.data)
      last = first.body.data[0]?.id
      while (!control.signal.aborted) {
        try {
          setLive(true)
          await stream(last, control.signal, (event) => {
            last = event.id
            setEvents((shown) => [event, ...shown].slice(0, 200))
          })
        } catch (error) {
          if (control.signal.aborted) return
          setFailure(error)
        }
        setLive(false)
        // The stream ended (a token's expiry ends it): resume after the last event seen.
        await new Promise((resolve) => setTimeout(resolve, 1000))
      }
    }
    run().catch((error) => {
      if (!control.signal.aborted) setFailure(error)
    })
    return () => control.abort()
  }, [])
  const collectionOf = (type: string) =>
    props.learned.collections.find((c) => c.singular === type.split('.')[0])
  return (
    <>
      <Title>Event log</Title>
      <p class="muted">
        <span class={live ? 'badge ok' : 'badge'}>{live ? 'live' : 'connecting'}</span> Newest first.
      </p>
      <Failure error={failure} />
      <div class="table-wrap" role="log" aria-live="polite" aria-label="Events">
        <table>
          <thead>
            <tr>
              <th scope="col">type</th>
              <th scope="col">record</th>
              <th scope="col">time</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => {
              const collection = collectionOf(event.type)
              return (
                <tr key={event.id}>
                  <td>
                    <code>{event.type}</code>
                  </td>
                  <td>
                    {collection ? (
                      <Link href={`/console/c/${collection.name}/${encodeURIComponent(event.resourceId)}`}>
                        <code>{event.resourceId}</code>
                      </Link>
                    ) : (
                      <code>{event.resourceId}</code>
                    )}
                  </td>
                  <td>
                    <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleString()}</time>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
        {events.length === 0 ? <p class="empty">No events yet: they appear here as records change.</p> : null}
      </div>
    </>
  )
}
