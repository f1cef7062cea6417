/** `/console/schema`: every collection of the schema in force, as the OpenAPI document describes it. */
import type { Learned } from '../learn.ts'
import { Link, Title } from '../parts.tsx'

export function SchemaPage(props: { learned: Learned; scopes: string[] }) {
  return (
    <>
      <Title>Schema</Title>
      <p class="muted">
        Read from <code>/api/v2/openapi.json</code>: {props.learned.collections.length} collections.
      </p>
      {props.learned.collections.map((c) => (
        <section key={c.name} class="card" aria-labelledby={`schema-${c.name}`}>
          <h2 id={`schema-${c.name}`}>
            <Link href={`/console/c/${c.name}`}>{c.name}</Link>
          </h2>
          <p class="muted">
            one {c.singular}
            {c.parent ? ` · nested under ${c.parent.collection} (${c.parent.field})` : ''}
            {c.actions.length ? ` · actions: ${c.actions.map((a) => a.name).join(', ')}` : ''}
          </p>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">field</th>
                  <th scope="col">type</th>
                  <th scope="col">required</th>
                  <th scope="col">filter</th>
                  <th scope="col">sort</th>
                  <th scope="col">search</th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(c.fields).map(([name, f]) => (
                  <tr key={name}>
                    <th scope="row">
                      <code>{name}</code>
                    </th>
                    <td>
                      {f.type}
                      {f.type === 'enum' ? `: ${(f.values ?? []).join(', ')}` : ''}
                      {f.type === 'reference' ? ` to ${f.to}` : ''}
                      {f.currencyField ? ' (money)' : ''}
                      {f.readOnly ? ', read-only' : ''}
                    </td>
                    <td>{f.required ? 'yes' : ''}</td>
                    <td>{f.filter ?? ''}</td>
                    <td>{f.sort ? 'yes' : ''}</td>
                    <td>{f.search ? 'yes' : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </>
  )
}
