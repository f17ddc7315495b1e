import type BetterSqlite3 from "better-sqlite3";
import { DEFAULT_STATE_TABLE } from "../../../state/index.js";

const tableExists = (db: BetterSqlite3.Database, name: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/**
 * Whether a deployment with prefix `p` kept its states in the shared, unprefixed state table
 * (DEFAULT_STATE_TABLE), as versions before the state table took the prefix did: its other tables
 * exist but `<p>state` does not. Ask before the schema is created. (The default prefix's state table
 * is DEFAULT_STATE_TABLE itself: nothing to adopt.)
 */
export function keptStatesUnprefixed(db: BetterSqlite3.Database, p: string): boolean {
  return (
    `${p}state` !== DEFAULT_STATE_TABLE &&
    tableExists(db, `${p}sessions`) &&
    !tableExists(db, `${p}state`) &&
    tableExists(db, DEFAULT_STATE_TABLE)
  );
}

/**
 * Copies the shared state table's rows into `<p>state` (once, when that table is new), so the
 * sessions of a deployment made before keep their state. The shared table is left as it was (the
 * default prefix's deployment, or another one's, may still read it); states of other deployments
 * that shared it come along and are never read.
 */
export function adoptUnprefixedStates(db: BetterSqlite3.Database, p: string): void {
  db.exec(
    `INSERT OR IGNORE INTO ${p}state (session_id, version, state, updated_at) SELECT session_id, version, state, updated_at FROM ${DEFAULT_STATE_TABLE}`,
  );
}
