/**
 * Runs a block of examples in bash and says what went wrong with each line: its exit status, a
 * deprecation warning (an example that teaches v1 without saying so), or an `api list`/`api query`
 * that printed no record where the demo data has some.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { saveLogin } from '../../cli/config.ts'
import { type Block, commandOf, type Expectations, type Stage } from './examples.ts'
import { expectNoSecrets, tempDir } from './harness.ts'

/** Placeholder ids as the help (`ord_…`) and the docs (`ord_01jd...`) print them. */
const PLACEHOLDER = /\b(usr|ord|pst|cmt|prd|clt|cs)_(?:01jd)?(?:…|\.\.\.)/g

/** Examples that run until Ctrl-C: interrupted after a while, they must exit 130 as documented. */
const RUNS_UNTIL_INTERRUPTED = /^api (graphql 'subscription|webhooks listen)/

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`

/** POSTs as the demo admin; returns the new record's id. */
async function post(stage: Stage, path: string, body: unknown): Promise<string> {
  const response = await fetch(`${stage.server.url}/api/v2${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${stage.admin.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  const answer = (await response.json()) as { id?: string }
  if (response.status !== 201 || !answer.id) throw new Error(`POST ${path}: ${JSON.stringify(answer)}`)
  return answer.id
}

/**
 * Real ids for an example's placeholders, the same one for each kind within it. Records an
 * example may change or delete are made for it: a pending order with a line item, a draft post
 * with a comment, a product.
 */
async function idsFor(stage: Stage, text: string): Promise<Map<string, string>> {
  const kinds = new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))
  const ids = new Map<string, string>([
    ['usr', stage.admin.id],
    ['clt', stage.client.id],
    ['cs', stage.client.secret],
  ])
  const unique = crypto.randomUUID().slice(0, 8)
  if (kinds.has('prd') || kinds.has('ord'))
    ids.set(
      'prd',
      await post(stage, '/products', {
        name: 'Example lamp',
        sku: `EX-${unique}`,
        price: { value: 1999, currency: 'EUR' },
      }),
    )
  if (kinds.has('ord')) {
    const order = await post(stage, '/orders', {
      userId: stage.admin.id,
      amount: { value: 3998, currency: 'EUR' },
    })
    await post(stage, `/orders/${order}/line-items`, {
      productId: ids.get('prd'),
      quantity: 2,
      unitPrice: 1999,
    })
    ids.set('ord', order)
  }
  if (kinds.has('pst') || kinds.has('cmt')) {
    const postId = await post(stage, '/posts', {
      authorId: stage.admin.id,
      title: `Example ${unique}`,
      body: 'A draft.',
      published: false,
    })
    ids.set('pst', postId)
    ids.set('cmt', await post(stage, `/posts/${postId}/comments`, { text: 'First comment' }))
  }
  return ids
}

/** What a line looks like to the shell: zsh's completion in zsh, a stream interrupted. */
function shellLine(line: string): string {
  const command = commandOf(line)
  // As its comment says: in ~/.zshrc, after compinit.
  if (/^source <\(api completion zsh\)/.test(command))
    return `zsh -fc ${quote(`autoload -U compinit && compinit -u && ${command}`)}`
  if (RUNS_UNTIL_INTERRUPTED.test(command)) return `timeout --preserve-status -s INT 8 ${command}`
  return line
}

/** Whether a line lists or queries a collection the demo data fills (so it must print some). */
function promisesRecords(line: string, filled: Set<string>): boolean {
  const words = commandOf(line).split(/\s+/)
  let k = words.indexOf('api') + 1
  while (words[k]?.startsWith('--')) k += words[k]!.includes('=') ? 1 : 2
  if (!['list', 'query'].includes(words[k] ?? '') || words.includes('--help')) return false
  const parts = (words[k + 1] ?? '').split('/')
  return filled.has(parts[2] ?? parts[0]!)
}

function hasRecords(text: string): boolean {
  const output = text.trim()
  if (/^\d+$/.test(output)) return Number(output) > 0
  return output !== '' && output !== '[]' && output !== '(no records)'
}

/** Runs the block in one bash, each line's output apart; returns a message per line that failed. */
export async function runBlock(stage: Stage, block: Block, expectations: Expectations): Promise<string[]> {
  const home = tempDir('api-examples-home-')
  // Where fish reads completions, as a fish user has it.
  mkdirSync(join(home, '.config/fish/completions'), { recursive: true })
  const lines = block.examples.flatMap((e) => e.lines.map((line) => ({ source: e.source, line })))
  // A block that logs in starts logged out, as its reader would be; any other, as the demo admin.
  if (!lines.some(({ line }) => /\bapi login\b/.test(line)))
    saveLogin({ HOME: home }, stage.server.url, stage.admin.login)
  const out = tempDir('api-examples-out-')
  let script = `set -o pipefail\ncd ${quote(stage.work)}\n`
  let i = -1
  for (const example of block.examples) {
    const ids = await idsFor(stage, example.lines.join('\n'))
    for (const line of example.lines) {
      i++
      const skip = expectations.skipped[commandOf(line)]
      if (skip) {
        skip.standIn?.(home)
        continue
      }
      const real = shellLine(line).replace(PLACEHOLDER, (_, kind: string) => ids.get(kind)!)
      script += `{ ${real}\n} >${quote(`${out}/${i}.out`)} 2>${quote(`${out}/${i}.err`)}; echo $? >${quote(`${out}/${i}.code`)}\n`
    }
  }
  const shell = Bun.spawn(['bash', '--noprofile', '--norc', '-c', script], {
    env: { PATH: `${stage.work}:${process.env.PATH}`, HOME: home, API_URL: stage.server.url, TERM: 'dumb' },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
  })
  const shellErrors = await new Response(shell.stderr).text()
  if ((await shell.exited) !== 0) return [`${block.name}: bash failed: ${shellErrors}`]
  const failures: string[] = []
  for (const [i, { source, line }] of lines.entries()) {
    if (expectations.skipped[commandOf(line)]) continue
    const read = (kind: string) => readFileSync(`${out}/${i}.${kind}`, 'utf8')
    if (!existsSync(`${out}/${i}.code`)) {
      failures.push(`${source}: ${line}\n  did not run`)
      continue
    }
    const [code, stdout, stderr] = [Number(read('code')), read('out'), read('err')]
    expectNoSecrets(stdout + stderr)
    const expected = RUNS_UNTIL_INTERRUPTED.test(commandOf(line)) ? 130 : 0
    if (code !== expected) {
      failures.push(
        `${source}: ${line}\n  exit ${code}, not ${expected}: ${stderr.trim().replace(/\n/g, '\n  ')}`,
      )
      continue
    }
    // Only an example about v1 may teach it: any other would lead its reader to a deprecated API.
    if (/\bdeprecated\b/.test(stderr) && !line.includes('--api-version v1')) {
      failures.push(`${source}: ${line}\n  uses the deprecated v1: ${stderr.trim()}`)
      continue
    }
    if (!promisesRecords(line, stage.filled) || commandOf(line) in expectations.mayBeEmpty) continue
    // `... > orders.ndjson` printed into that file.
    const file = / > ([\w.-]+)$/.exec(commandOf(line))?.[1]
    const printed = file ? readFileSync(join(stage.work, file), 'utf8') : stdout
    if (!hasRecords(printed))
      failures.push(`${source}: ${line}\n  printed no records: ${printed.trim().slice(0, 200)}`)
  }
  return failures
}
