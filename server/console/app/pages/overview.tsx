import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.ts'
import { session } from '../auth.ts'
import { API, type Learned } from '../learn.ts'
import { Failure, Loading, Title } from '../parts.tsx'

interface Health {
  path: string
  ok: boolean
  body: string
}

async function health(path: string): Promise<Health> {
  try {
    const response = await fetch(path)
    return { path, ok: response.ok, body: await response.text() }
  } catch (error) {
    return { path, ok: false, body: String(error) }
  }
}

/** `/console/`: the server's health, who is signed in and what the token may do. */
export function Overview(props: { learned: Learned; scopes: string[] }) {
  const [checks, setChecks] = useState<Health[] | null>(null)
  const [user, setUser] = useState<Record<string, unknown> | null>(null)
  const [failure, setFailure] = useState<unknown>(null)
  const subject = session()?.subject ?? ''
  useEffect(() => {
    Promise.all(['/healthz', '/readyz'].map(health)).then(setChecks)
    if (subject)
      api(`${API}/users/${encodeURIComponent(subject)}`).then((answer) => setUser(answer.body), setFailure)
  }, [subject])
  return (
    <>
      <Title>Overview</Title>
      <section aria-labelledby="health-heading" class="card">
        <h2 id="health-heading">Health</h2>
        {checks ? (
          <dl class="facts">
            {checks.map((check) => (
              <div key={check.path}>
                <dt>
                  <code>{check.path}</code>
                </dt>
                <dd>
                  <span class={check.ok ? 'badge ok' : 'badge bad'}>{check.ok ? 'ok' : 'failing'}</span>
                </dd>
              </div>
            ))}
          </dl>
        ) : (
          <Loading />
        )}
      </section>
      <section aria-labelledby="who-heading" class="card">
        <h2 id="who-heading">Signed in as</h2>
        <Failure error={failure} />
        {user ? (
          <dl class="facts">
            {['name', 'email', 'role'].map((key) => (
              <div key={key}>
                <dt>{key}</dt>
                <dd>{String(user[key] ?? '—')}</dd>
              </div>
            ))}
            <div>
              <dt>organization</dt>
              <dd>
                <code>{session()?.organization}</code>
              </dd>
            </div>
          </dl>
        ) : failure ? null : (
          <Loading />
        )}
      </section>
      <section aria-labelledby="scopes-heading" class="card">
        <h2 id="scopes-heading">Scopes of this session's token</h2>
        <ul class="chips">
          {props.scopes.map((scope) => (
            <li key={scope}>
              <code>{scope}</code>
            </li>
          ))}
        </ul>
      </section>
    </>
  )
}
