/** The console's location: pages are paths under /console (History API), the query keeps a list's state. */
import { useEffect, useState } from 'preact/hooks'

const listeners = new Set<() => void>()
const here = () => location.pathname + location.search

/** Goes to `to` (a path under /console) without reloading; `replace` keeps the history as it is. */
export function navigate(to: string, replace = false): void {
  if (to === here()) return
  if (replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  for (const listener of listeners) listener()
}

addEventListener('popstate', () => {
  for (const listener of listeners) listener()
})

/** The current path and query; the component renders again when they change. */
export function useLocation(): URL {
  const [, setAt] = useState(here())
  useEffect(() => {
    const listener = () => setAt(here())
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
    }
  }, [])
  return new URL(location.href)
}

/** Whether a click on a link is one the console handles itself (not a new tab or window). */
export const ownClick = (event: MouseEvent) =>
  event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey
