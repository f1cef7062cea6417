import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { SQL } from 'bun'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '../../support/postgres.ts'

/**
 * Bun.sql, the PostgreSQL client the store runs on, checked on a real server before the store
 * relies on it.
 *
 * 1. Every query gets its own answer. Bun.sql had a bug where rows of one query reached another
 *    query on the same connection: oven-sh/bun#33627 (prepared statements, fixed 2026-07-10),
 *    #32772 (the simple protocol, which `sql.begin` uses for BEGIN and COMMIT) and a failed-query
 *    case since. The published sequences run here in order on one connection; then 4,000
 *    different queries at once on one pool: different shapes and parameter types, new texts and
 *    prepared ones, simple and extended protocol, in and out of transactions, savepoints and
 *    reserved connections, some failing on purpose (a unique violation, a division by zero, an
 *    unknown column, a bad number), the same text succeeding or failing by its parameters. Every
 *    answer must be exactly its own, and come (a query left waiting is the other symptom). With
 *    `max: 1` and `max: 4`, `prepare: true` (the store's setting) and `prepare: false` (the
 *    fallback docs/architecture.md names).
 *    Checked both ways: on Bun 1.3.14, from before the fixes, the #32772 sequence gives the
 *    prepared query the next simple query's row and leaves two queries unanswered, and about 3,000
 *    of the 4,000 answers are wrong with `prepare: true` (none with `prepare: false`); on the
 *    pinned Bun (package.json) every answer is right in every setting.
 *
 * 2. What Bun.sql returns and throws, as the store maps it (server/store/postgres/):
 *    - int8 (`count(*)`, `sum` of integers, bigint columns such as `events.seq`) and numeric: a
 *      string (`'3'`), never a number or a BigInt; int2/int4: a number; float8: a number.
 *    - boolean: true/false. NULL: null. text[]: a JS array of strings. (int4[] comes back as an
 *      Int32Array when the query has parameters, as an Array when not; no column of ours is one.)
 *    - Parameters: a JS string is sent untyped (PostgreSQL infers it from the context: `$1` alone
 *      fails with 42P08); an integer as int4 (int8 beyond 32 bits), a fraction as float8, a BigInt
 *      as int8, true/false as boolean: so a boolean column takes true/false, not 0/1 (42883). A JS
 *      array binds as one array parameter: `col = ANY($1)` works with a text column, also empty.
 *      NaN arrives as NULL. A null alone (`SELECT $1`) is typed by whatever Bun guessed (keep it in
 *      a typed context: a column, a cast).
 *    - A write's result has `count` (rows inserted, updated or deleted; 0 when ON CONFLICT DO
 *      NOTHING skipped it) and `command` ('INSERT'...).
 *    - A server error is a `SQL.PostgresError` whose `errno` is the SQLSTATE ('23505' unique
 *      violation, '22012' division by zero, '42703' unknown column) and whose `code` is Bun's own
 *      ('ERR_POSTGRES_SERVER_ERROR'; 'ERR_POSTGRES_SYNTAX_ERROR' for 42601); a unique violation
 *      also names `constraint` (the index: 'users_org_email_unique'), `table`, `schema` and
 *      `detail` ('Key (id)=(x) already exists.').
 */

if (!postgresAvailable())
  console.warn(
    'PostgreSQL is not installed here: the Bun.sql checks are skipped (apt-get install postgresql, or set API_TEST_POSTGRES_URL)',
  )

const describeWithPostgres = postgresAvailable() ? describe : describe.skip

/** A small seeded generator: the same queries every run. */
function random(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (max: number) => Math.floor(next() * max)
  const pick = <T>(items: readonly T[]) => items[int(items.length)]!
  return { int, pick, chance: (p: number) => next() < p }
}

const ITEMS = 300
const label = (id: number) => `item-${id}${id % 7 === 0 ? '-é€😀' : ''}`
const item = (id: number) => ({
  id,
  label: label(id),
  flag: id % 3 === 0,
  tags: id % 5 === 0 ? [] : [`t${id % 4}`, `u${id}`],
  amount: id % 11 === 0 ? null : String(BigInt(id) * 10_000_000_000n),
})

/** What a failed query gives, in a form to compare. */
function failure(error: unknown) {
  if (error instanceof SQL.PostgresError)
    return { error: error.errno, ...(error.constraint ? { constraint: error.constraint } : {}) }
  return { thrown: error instanceof Error ? error.message : String(error) }
}

interface Job {
  kind: string
  run: (sql: SQL) => Promise<unknown>
  expected: unknown
}

/** `count` random queries, each with the answer it must get; ids written by transactions that commit. */
function jobs(count: number, seed: number) {
  const r = random(seed)
  const committed: string[] = []
  const list: Job[] = []
  const word = () => `w${r.int(1_000_000)}${r.pick(['', "'", 'é', ' x', '"', '\\', '😀'])}`
  const kinds: ((n: number) => Job)[] = [
    () => {
      const i = r.int(2 ** 31) - 2 ** 30
      const s = word()
      const b = r.chance(0.5)
      const arr = Array.from({ length: r.int(4) }, word)
      const big = BigInt(r.int(2 ** 31)) * 1_000_003n
      return {
        kind: 'typed echo',
        run: (sql) =>
          sql.unsafe(
            'SELECT $1::int AS i, $2::text AS s, $3::boolean AS b, $4::text[] AS arr, $5::int8 AS big, $6::text AS n',
            [i, s, b, arr, big, null],
          ),
        expected: [{ i, s, b, arr, big: String(big), n: null }],
      }
    },
    () => {
      const tag = word()
      const f = r.int(1000) / 8
      return {
        kind: 'other shape',
        run: (sql) =>
          sql.unsafe('SELECT $1::text AS tag, $2::float8 AS f, $3::numeric AS num', [tag, f, `${f}`]),
        expected: [{ tag, f, num: `${f}` }],
      }
    },
    () => {
      const id = 1 + r.int(ITEMS + 20)
      return {
        kind: 'row by id',
        run: (sql) => sql.unsafe('SELECT id, label, flag, tags, amount FROM items WHERE id = $1', [id]),
        expected: id <= ITEMS ? [item(id)] : [],
      }
    },
    () => {
      const from = r.int(ITEMS)
      const to = from + r.int(120)
      return {
        kind: 'range',
        run: (sql) => sql`SELECT id, label FROM items WHERE id > ${from} AND id <= ${to} ORDER BY id`,
        expected: Array.from({ length: Math.min(to, ITEMS) - from }, (_, k) => ({
          id: from + k + 1,
          label: label(from + k + 1),
        })),
      }
    },
    () => {
      const ids = Array.from({ length: r.int(6) }, () => 1 + r.int(ITEMS + 50))
      const labels = ids.map(label)
      const hits = [...new Set(ids)].filter((id) => id <= ITEMS)
      return {
        kind: 'any of a list',
        run: (sql) =>
          sql.unsafe(
            'SELECT count(*) AS n, coalesce(sum(id), 0)::int8 AS total FROM items WHERE label = ANY($1)',
            [labels],
          ),
        expected: [{ n: String(hits.length), total: String(hits.reduce((a, b) => a + b, 0)) }],
      }
    },
    () => {
      const rows = 1 + r.int(60)
      const piece = r.pick(['a', 'bé', '😀', 'xyz'])
      return {
        kind: 'wide rows',
        run: (sql) =>
          sql.unsafe('SELECT g AS n, repeat($2::text, g * 7) AS s FROM generate_series(1, $1::int) g', [
            rows,
            piece,
          ]),
        expected: Array.from({ length: rows }, (_, k) => ({ n: k + 1, s: piece.repeat((k + 1) * 7) })),
      }
    },
    (n) => {
      const tag = word()
      return {
        // A text never seen before: Parse and Describe first, while others queue behind it.
        kind: 'new statement',
        run: (sql) => sql.unsafe(`SELECT $1::text AS v, ${n} AS n, $2::int8 AS b`, [tag, n]),
        expected: [{ v: tag, n, b: String(n) }],
      }
    },
    () => {
      const k = r.int(1_000_000)
      return {
        kind: 'simple protocol',
        run: (sql) => sql.unsafe(`SELECT ${k}::int AS k, 'simple-${k}' AS t, NULL AS z`),
        expected: [{ k, t: `simple-${k}`, z: null }],
      }
    },
    () => {
      const k = r.int(1_000_000)
      return {
        kind: 'two statements (simple protocol)',
        run: (sql) => sql.unsafe(`SELECT ${k} AS a; SELECT 'x${k}' AS b, true AS c`),
        expected: [[{ a: k }], [{ b: `x${k}`, c: true }]],
      }
    },
    () => {
      const fresh = r.chance(0.4)
      const id = fresh ? `fresh-${crypto.randomUUID()}` : 'taken'
      return {
        kind: 'insert, a unique violation when taken',
        run: async (sql) => {
          const result = await sql.unsafe('INSERT INTO taken (id) VALUES ($1)', [id])
          return { count: result.count, command: result.command }
        },
        expected: fresh ? { count: 1, command: 'INSERT' } : { error: '23505', constraint: 'taken_pkey' },
      }
    },
    () => {
      const a = r.int(1000) - 500
      const b = r.chance(0.4) ? 0 : r.int(20) - 10 || 3
      return {
        kind: 'division, by zero at times',
        run: (sql) => sql.unsafe('SELECT $1::int / $2::int AS q', [a, b]),
        expected: b === 0 ? { error: '22012' } : [{ q: Math.trunc(a / b) || 0 }],
      }
    },
    () => {
      const x = r.int(1000)
      return {
        kind: 'unknown column (fails to prepare)',
        run: (sql) => sql.unsafe('SELECT no_such_column, $1::int AS x FROM items', [x]),
        expected: { error: '42703' },
      }
    },
    () => {
      const good = r.chance(0.5)
      const value = good ? String(r.int(1000)) : `n${r.int(1000)}`
      return {
        kind: 'a number or not (fails at bind)',
        run: (sql) => sql.unsafe('SELECT $1::int AS x', [value]),
        expected: good ? [{ x: Number(value) }] : { error: '22P02' },
      }
    },
    (n) => {
      const id = `tx-${n}`
      const value = r.int(1000)
      const from = r.int(ITEMS - 10)
      committed.push(id)
      return {
        kind: 'transaction',
        run: (sql) =>
          sql.begin(async (tx) => {
            await tx`INSERT INTO writes (id, n) VALUES (${id}, ${value})`
            const [row] = await tx`SELECT n, id FROM writes WHERE id = ${id}`
            const simple = await tx.unsafe(`SELECT '${id}' AS simple`)
            const items = await tx`SELECT id FROM items WHERE id > ${from} ORDER BY id LIMIT 3`
            return { row, simple: [...simple], items: [...items] }
          }),
        expected: {
          row: { n: value, id },
          simple: [{ simple: id }],
          items: [1, 2, 3].map((k) => ({ id: from + k })),
        },
      }
    },
    (n) => {
      const id = `tx-failed-${n}`
      const how = r.pick(['unique', 'division', 'thrown'] as const)
      return {
        kind: `transaction rolled back (${how})`,
        run: (sql) =>
          sql.begin(async (tx) => {
            await tx`INSERT INTO writes (id, n) VALUES (${id}, 1)`
            if (how === 'unique') await tx`INSERT INTO taken (id) VALUES ('taken')`
            if (how === 'division') await tx.unsafe('SELECT 1 / $1::int AS q', [0])
            throw new Error(`rolled back ${id}`)
          }),
        expected:
          how === 'unique'
            ? { error: '23505', constraint: 'taken_pkey' }
            : how === 'division'
              ? { error: '22012' }
              : { thrown: `rolled back ${id}` },
      }
    },
    (n) => {
      const first = `sp-a-${n}`
      const second = `sp-b-${n}`
      committed.push(first, second)
      return {
        kind: 'savepoint rolled back inside a transaction',
        run: (sql) =>
          sql.begin(async (tx) => {
            await tx`INSERT INTO writes (id, n) VALUES (${first}, 1)`
            const caught = await tx
              .savepoint(async (sp) => {
                await sp`INSERT INTO writes (id, n) VALUES (${`sp-lost-${n}`}, 1)`
                await sp`INSERT INTO taken (id) VALUES ('taken')`
              })
              .then(() => null, failure)
            await tx`INSERT INTO writes (id, n) VALUES (${second}, 2)`
            const [row] =
              await tx`SELECT count(*) AS n FROM writes WHERE id = ANY(${[first, second, `sp-lost-${n}`]})`
            return { caught, row }
          }),
        expected: { caught: { error: '23505', constraint: 'taken_pkey' }, row: { n: '2' } },
      }
    },
    () => {
      const k = r.int(1000)
      return {
        kind: 'reserved connection',
        run: async (sql) => {
          const reserved = await sql.reserve()
          try {
            const a = await reserved`SELECT ${k}::int AS k`
            const b = await reserved.unsafe('SELECT 1 / $1::int AS q', [0]).then(() => null, failure)
            const c = await reserved.unsafe(`SELECT '${k}' AS s`)
            return [...a, b, ...c]
          } finally {
            reserved.release()
          }
        },
        expected: [{ k }, { error: '22012' }, { s: String(k) }],
      }
    },
  ]
  for (let n = 0; n < count; n++) list.push(r.pick(kinds)(n))
  return { list, committed }
}

/** What a query not answered in time gives: one variant of the bug left a query waiting for ever. */
const NO_ANSWER = { noAnswer: true }

/** `promise`, or NO_ANSWER once `deadline` (a timestamp) has passed. */
function answered<T>(promise: Promise<T>, deadline: number): Promise<T | typeof NO_ANSWER> {
  let timer: Timer | undefined
  const late = new Promise<typeof NO_ANSWER>((resolve) => {
    timer = setTimeout(() => resolve(NO_ANSWER), Math.max(0, deadline - Date.now()))
  })
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

/** Rows as plain data (a result is an array with extra properties). */
const plain = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(plain) : value && typeof value === 'object' ? { ...value } : value

describeWithPostgres('Bun.sql on one pool', () => {
  let postgres: TestPostgres
  let url: string

  beforeAll(async () => {
    postgres = await startTestPostgres()
    url = await postgres.database('bun_sql_repro')
    const sql = new SQL(url, { max: 1 })
    await sql.unsafe(`
      CREATE TABLE items (id int PRIMARY KEY, label text COLLATE "C" NOT NULL, flag boolean NOT NULL,
        tags text[] NOT NULL, amount bigint);
      CREATE TABLE taken (id text COLLATE "C" PRIMARY KEY);
      CREATE TABLE writes (id text COLLATE "C" PRIMARY KEY, n int NOT NULL);
      INSERT INTO taken VALUES ('taken');`)
    for (let id = 1; id <= ITEMS; id++) {
      const { label, flag, tags, amount } = item(id)
      // The array as PostgreSQL's text form: the set-up does not rest on what is under test.
      await sql`INSERT INTO items (id, label, flag, tags, amount)
        VALUES (${id}, ${label}, ${flag}, ${`{${tags.join(',')}}`}::text[], ${amount}::int8)`
    }
    await sql.close()
  })

  afterAll(async () => {
    await postgres?.stop()
  })

  it('answers the published repros in order (#32772: simple queries around a new prepared one; #33627: a prepared query written ahead of a new one)', async () => {
    for (const prepare of [true, false]) {
      const sql = new SQL(url, { max: 1, prepare })
      const deadline = Date.now() + 15_000
      const all = (queries: Promise<unknown>[]) =>
        Promise.all(queries.map((q) => answered(q.then(plain, failure), deadline)))
      try {
        for (let round = 0; round < 50; round++) {
          const simple = await all([
            sql.unsafe(`SELECT 'A${round}'::text AS v`),
            sql.unsafe(`SELECT $1::text AS v, ${round} AS round`, [`B${round}`]),
            sql.unsafe(`SELECT 'C${round}'::text AS v`),
            sql.unsafe(`SELECT $1::text AS v, 'again ${round}' AS round`, [`D${round}`]),
          ])
          expect([prepare, simple]).toEqual([
            prepare,
            [
              [{ v: `A${round}` }],
              [{ v: `B${round}`, round }],
              [{ v: `C${round}` }],
              [{ v: `D${round}`, round: `again ${round}` }],
            ],
          ])
          const ahead = await all([
            sql.unsafe(`SELECT set_config('api.repro', $1, false) AS v, ${round} AS r`, [`${round}ms`]),
            sql.unsafe('SELECT id, label FROM items WHERE id = $1', [round + 1]),
            sql.unsafe(
              `SELECT pg_advisory_lock(${round} + $1::int) IS NULL AS locked, ${round} AS r`,
              [1_000],
            ),
            sql.unsafe('SELECT id, label FROM items WHERE id = $1', [round + 2]),
            sql.unsafe(`SELECT pg_advisory_unlock(${round} + $1::int) AS unlocked, ${round} AS r`, [1_000]),
          ])
          expect([prepare, ahead]).toEqual([
            prepare,
            [
              [{ v: `${round}ms`, r: round }],
              [{ id: round + 1, label: label(round + 1) }],
              [{ locked: false, r: round }],
              [{ id: round + 2, label: label(round + 2) }],
              [{ unlocked: true, r: round }],
            ],
          ])
        }
      } finally {
        // A query left unanswered would hold close() for ever: one second, then the sockets go.
        await sql.close({ timeout: 1 })
      }
    }
  }, 45_000)

  for (const [max, prepare] of [
    [1, true],
    [4, true],
    [4, false],
  ] as const) {
    it(`gives every one of 4,000 concurrent queries its own answer (max: ${max}, prepare: ${prepare})`, async () => {
      const sql = new SQL(url, { max, prepare })
      try {
        await sql`DELETE FROM writes`
        const { list, committed } = jobs(4000, max * 10 + Number(prepare))
        const deadline = Date.now() + 40_000
        const wrong: { n: number; kind: string; expected: unknown; actual: unknown }[] = []
        await Promise.all(
          list.map(async (job, n) => {
            const actual = await answered(job.run(sql).then(plain, failure), deadline)
            if (!Bun.deepEquals(actual, job.expected, true))
              wrong.push({ n, kind: job.kind, expected: job.expected, actual })
          }),
        )
        const kinds = new Set(list.map((j) => j.kind))
        expect(kinds.size).toBeGreaterThanOrEqual(19)
        // On a failure: how many of each kind went wrong, and the first few in full.
        const byKind: Record<string, number> = {}
        for (const w of wrong) byKind[w.kind] = (byKind[w.kind] ?? 0) + 1
        expect({ wrong: wrong.length, byKind, first: wrong.slice(0, 3) }).toEqual({
          wrong: 0,
          byKind: {},
          first: [],
        })
        // What the transactions left: the committed ones' rows, nothing of the rolled-back ones.
        const rows = await sql`SELECT id FROM writes ORDER BY id`
        expect(rows.map((row: { id: string }) => row.id)).toEqual(
          [...committed].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
        )
      } finally {
        await sql.close({ timeout: 1 })
      }
    }, 60_000)
  }

  it('returns and throws what the store maps', async () => {
    const sql = new SQL(url, { max: 1 })
    try {
      const [row] = await sql`SELECT count(*) AS c, 5::int8 AS i8, 4::int4 AS i4, 1.50::numeric AS num,
        2.5::float8 AS f8, true AS b, NULL::text AS n, ARRAY['a', 'b']::text[] AS arr, ${'x'}::text AS p`
      expect({ ...row }).toEqual({
        c: '1',
        i8: '5',
        i4: 4,
        num: '1.50',
        f8: 2.5,
        b: true,
        n: null,
        arr: ['a', 'b'],
        p: 'x',
      })

      const any = (list: string[]) => sql`SELECT count(*) AS n FROM items WHERE label = ANY(${list})`
      expect((await any([label(1), label(2), 'none']))[0].n).toBe('2')
      expect((await any([]))[0].n).toBe('0')
      const [typed] = await sql.unsafe(
        'SELECT pg_typeof($1)::text AS a, pg_typeof($2)::text AS b, pg_typeof($3)::text AS c, pg_typeof($4)::text AS d',
        [1, 2 ** 40, 1.5, true],
      )
      expect({ ...typed }).toEqual({ a: 'integer', b: 'bigint', c: 'double precision', d: 'boolean' })
      const boolFromNumber = await sql
        .unsafe('SELECT count(*) FROM items WHERE flag = $1', [1])
        .then(() => null, failure)
      expect(boolFromNumber).toEqual({ error: '42883' })

      const inserted = await sql`INSERT INTO taken (id) VALUES (${'counted'}) ON CONFLICT DO NOTHING`
      const skipped = await sql`INSERT INTO taken (id) VALUES (${'counted'}) ON CONFLICT DO NOTHING`
      const updated = await sql`UPDATE items SET flag = flag WHERE id <= 3`
      expect([inserted, skipped, updated].map((r) => [r.command, r.count])).toEqual([
        ['INSERT', 1],
        ['INSERT', 0],
        ['UPDATE', 3],
      ])

      const error = await sql`INSERT INTO taken (id) VALUES ('taken')`.then(
        () => null,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(SQL.PostgresError)
      expect(error).toBeInstanceOf(SQL.SQLError)
      expect(error).toMatchObject({
        name: 'PostgresError',
        code: 'ERR_POSTGRES_SERVER_ERROR',
        errno: '23505',
        constraint: 'taken_pkey',
        table: 'taken',
        schema: 'public',
        detail: 'Key (id)=(taken) already exists.',
        message: 'duplicate key value violates unique constraint "taken_pkey"',
      })
      const syntax = await sql.unsafe('SELEC 1').then(
        () => null,
        (e: unknown) => e,
      )
      expect(syntax).toMatchObject({ code: 'ERR_POSTGRES_SYNTAX_ERROR', errno: '42601' })
    } finally {
      await sql.close()
    }
  })
})
