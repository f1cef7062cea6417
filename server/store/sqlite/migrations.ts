import { type Migration, parseSqlContent } from 'bun-sqlite-migrations'
import { sqlFilesIn } from '../sql-files.ts' with { type: 'macro' }

/**
 * Every migration of the service's own tables (migrations/*.sql), in the order of their names; a
 * file's version is its position. A migration is never edited once released, only followed by
 * another. The declared collections' tables are not here: server/schema/ derives them.
 */
export const MIGRATIONS: Migration[] = sqlFilesIn('sqlite/migrations').map((file, i) => ({
  version: i + 1,
  up: parseSqlContent(file.text.replace(/^--.*$/gm, '')),
  down: '',
}))
