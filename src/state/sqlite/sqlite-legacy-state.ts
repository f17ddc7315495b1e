import { DEFAULT_STATE_TABLE } from "../sql-names.js";
import type { SqliteDatabase } from "./sqlite-driver.js";
import { patchTable } from "./sqlite-state-schema.js";

const tableExists = (db: SqliteDatabase, name: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

const columnsOf = (db: SqliteDatabase, table: string): string[] =>
  db
    .prepare<[], { name: string }>(`PRAGMA table_info(${table})`)
    .all()
    .map((column) => column.name);

/**
 * Whether a deployment with prefix `p` kept its states in the shared, unprefixed state table
 * (DEFAULT_STATE_TABLE), as versions before the state table took the prefix did: its other tables
 * exist but `<p>state` does not. Ask before the schema is created. (The default prefix's state table
 * is DEFAULT_STATE_TABLE itself: nothing to adopt.)
 */
export function keptStatesUnprefixed(db: SqliteDatabase, p: string): boolean {
  return (
    `${p}state` !== DEFAULT_STATE_TABLE &&
    tableExists(db, `${p}sessions`) &&
    !tableExists(db, `${p}state`) &&
    tableExists(db, DEFAULT_STATE_TABLE)
  );
}

/**
 * Copies the shared state table's rows (and their patches, if it has any) into `<p>state` (once,
 * when that table is new), so the sessions of a deployment made before keep their state. The shared
 * table is left as it was (the default prefix's deployment, or another one's, may still read it);
 * states of other deployments that shared it come along and are never read.
 */
export function adoptUnprefixedStates(db: SqliteDatabase, p: string): void {
  const target = `${p}state`;
  const shared = columnsOf(db, DEFAULT_STATE_TABLE);
  const columns = columnsOf(db, target)
    .filter((column) => shared.includes(column))
    .join(", ");
  db.transaction(() => {
    db.exec(`INSERT OR IGNORE INTO ${target} (${columns}) SELECT ${columns} FROM ${DEFAULT_STATE_TABLE}`);
    const patches = patchTable(DEFAULT_STATE_TABLE);
    if (!tableExists(db, patches)) return;
    const patchColumns = columnsOf(db, patchTable(target))
      .filter((column) => columnsOf(db, patches).includes(column))
      .join(", ");
    db.exec(
      `INSERT OR IGNORE INTO ${patchTable(target)} (${patchColumns}) SELECT ${patchColumns} FROM ${patches}`,
    );
  }).immediate();
}
