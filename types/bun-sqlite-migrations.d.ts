// The package ships TypeScript sources that do not type-check under `strict`; the type checker
// reads this declaration of the part the project uses instead (tsconfig.typecheck.json `paths`).
import type { Database } from 'bun:sqlite'

export type Migration = { version: number; up: string[]; down: string }
export function migrate(db: Database, migrations: Migration[], targetVersion?: number): void
export function parseSqlContent(content: string): string[]
