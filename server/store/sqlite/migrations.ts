import { type Migration, parseSqlContent } from 'bun-sqlite-migrations'
// Embedded as text so the compiled binary carries its migrations.
import init from './migrations/0001_init.sql' with { type: 'text' }
import oauth from './migrations/0002_oauth.sql' with { type: 'text' }
import queries from './migrations/0003_queries.sql' with { type: 'text' }
import hardening from './migrations/0004_hardening.sql' with { type: 'text' }
import housekeeping from './migrations/0005_housekeeping.sql' with { type: 'text' }
import eventActors from './migrations/0006_event_actors.sql' with { type: 'text' }
import webhooks from './migrations/0007_webhooks.sql' with { type: 'text' }
import operatorCommands from './migrations/0008_operator_commands.sql' with { type: 'text' }

/** Every migration in order; a migration is never edited once released, only followed by another. */
const FILES: string[] = [
  init,
  oauth,
  queries,
  hardening,
  housekeeping,
  eventActors,
  webhooks,
  operatorCommands,
]

export const MIGRATIONS: Migration[] = FILES.map((sql, i) => ({
  version: i + 1,
  up: parseSqlContent(sql.replace(/^--.*$/gm, '')),
  down: '',
}))
