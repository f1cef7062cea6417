/** The console: signing in, the navigation, and the page the path names. */
import { useEffect, useState } from 'preact/hooks'
import { finishSignIn, onSessionChange, session, signIn, signOut, wasSignedOut } from './auth.ts'
import { type Learned, learn } from './learn.ts'
import { EventLog } from './pages/event-log.tsx'
import { FormPage } from './pages/form-page.tsx'
import { ListPage } from './pages/list-page.tsx'
import { Overview } from './pages/overview.tsx'
import { RecordPage } from './pages/record-page.tsx'
import { SchemaPage } from './pages/schema-page.tsx'
import { Failure, Link, Loading, Title } from './parts.tsx'
import { navigate, useLocation } from './router.ts'

function Page(props: { learned: Learned; url: URL }) {
  const { learned, url } = props
  const parts = url.pathname
    .replace(/^\/console\/?/, '')
    .split('/')
    .filter(Boolean)
    .map(decodeURIComponent)
  const collection =
    parts[0] === 'c' && parts[1] ? learned.collections.find((c) => c.name === parts[1]) : undefined
  const ctx = { learned, scopes: session()?.scopes ?? [] }
  if (parts.length === 0) return <Overview {...ctx} />
  if (parts[0] === 'events' && parts.length === 1) return <EventLog {...ctx} />
  if (parts[0] === 'schema' && parts.length === 1) return <SchemaPage {...ctx} />
  if (collection) {
    const id = parts[2]
    if (!id) return <ListPage {...ctx} collection={collection} url={url} key={collection.name} />
    if (id === 'new' && parts.length === 3) return <FormPage {...ctx} collection={collection} url={url} />
    if (parts.length === 3) return <RecordPage {...ctx} collection={collection} id={id} key={id} />
    if (parts[3] === 'edit' && parts.length === 4)
      return <FormPage {...ctx} collection={collection} url={url} id={id} key={id} />
  }
  return (
    <>
      <Title>Not found</Title>
      <p>
        There is no such page. <Link href="/console/">Go to the overview</Link>.
      </p>
    </>
  )
}

function Navigation(props: { learned: Learned; url: URL }) {
  const current = props.url.pathname
  const scopes = session()?.scopes ?? []
  const item = (href: string, label: string, active: boolean) => (
    <li key={href}>
      <a
        href={href}
        aria-current={active ? 'page' : undefined}
        onClick={(event) => {
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return
          event.preventDefault()
          navigate(href)
        }}
      >
        {label}
      </a>
    </li>
  )
  return (
    <nav aria-label="Console" class="sidebar">
      <p class="brand">api-service</p>
      <ul>{item('/console/', 'Overview', current === '/console/' || current === '/console')}</ul>
      <h2 class="nav-heading">Collections</h2>
      <ul>
        {props.learned.collections
          // What the token may not read is not offered (the API would refuse it anyway).
          .filter((c) => !c.parent && scopes.includes(c.access.read))
          .map((c) => item(`/console/c/${c.name}`, c.name, current.startsWith(`/console/c/${c.name}`)))}
      </ul>
      <h2 class="nav-heading">Service</h2>
      <ul>
        {scopes.includes('read:events')
          ? item('/console/events', 'Event log', current === '/console/events')
          : null}
        {item('/console/schema', 'Schema', current === '/console/schema')}
      </ul>
    </nav>
  )
}

function SignedOut(props: { learned: Learned }) {
  return (
    <main class="signed-out">
      <Title>Signed out</Title>
      <p>You signed out of the console; your tokens were revoked.</p>
      <button type="button" class="primary" onClick={() => void signIn(props.learned.scopes)}>
        Sign in
      </button>
    </main>
  )
}

export function App() {
  const url = useLocation()
  const [learned, setLearned] = useState<Learned | null>(null)
  const [failure, setFailure] = useState<unknown>(null)
  const [, setSignedIn] = useState(session() !== null)
  useEffect(() => onSessionChange(() => setSignedIn(session() !== null)), [])
  useEffect(() => {
    learn().then(setLearned, setFailure)
  }, [])
  const callback = url.pathname === '/console/callback'
  useEffect(() => {
    if (!callback) return
    finishSignIn(url).then((to) => navigate(to, true), setFailure)
  }, [callback])
  useEffect(() => {
    // Focus on the new page's heading, as a screen reader user expects after a navigation; also
    // when the API description arrives after the sign-in's callback has already moved on.
    document.getElementById('page-title')?.focus()
  }, [url.pathname, learned])
  const needsSignIn = !callback && learned !== null && session() === null && !wasSignedOut()
  useEffect(() => {
    if (needsSignIn && learned) void signIn(learned.scopes)
  }, [needsSignIn])
  if (failure)
    return (
      <main>
        <Title>The console cannot start</Title>
        <Failure error={failure} />
        <p>
          <a href="/console/">Start again</a>
        </p>
      </main>
    )
  if (!learned || callback || needsSignIn)
    return (
      <main>
        <Loading />
      </main>
    )
  if (!session()) return <SignedOut learned={learned} />
  return (
    <div class="layout">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <Navigation learned={learned} url={url} />
      <main id="main">
        <Page learned={learned} url={url} />
      </main>
      <footer class="session">
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </footer>
    </div>
  )
}
