/**
 * PostgreSQL refuses a foreign key to a table that does not exist yet, which two new collections
 * referring to each other cannot avoid (teams.leadId and members.teamId): such a key is left out
 * of its CREATE TABLE and added once every table exists, under the name PostgreSQL gives either
 * way (`members_team_id_fkey`). SQLite takes the reference as written and checks it on use.
 */
export function deferForwardKeys(
  statements: readonly string[],
  made: Set<string>,
  table: string,
): { now: string[]; later: string[] } {
  const later: string[] = []
  const create = statements[0]!.replace(
    /^(\s*(\w+) [^\n]*?) REFERENCES (\w+)\(id\)(,?)$/gm,
    (line, column: string, name: string, target: string, comma: string) => {
      if (made.has(target) || target === table) return line
      later.push(`ALTER TABLE ${table} ADD FOREIGN KEY (${name}) REFERENCES ${target}(id)`)
      return `${column}${comma}`
    },
  )
  made.add(table)
  return { now: [create, ...statements.slice(1)], later }
}
