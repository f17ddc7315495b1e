import type { SqliteDatabase } from "./sqlite-driver.js";

/** The table of a state table's patches. */
export const patchTable = (table: string): string => `${table}_patches`;

/**
 * Creates a state table (once) and brings one made by an older version up to date, in one IMMEDIATE
 * transaction (processes sharing the file wait for each other):
 * - `<table>`: per session its snapshot (`state`, saved at `version`), the `head` of that save, and
 *   `updated_at`. A row an older version wrote has no head: it loads as it is, its next save is a
 *   snapshot.
 * - `<table>_patches`: the saves after the snapshot, one row each (`version`, `head`, `patch`).
 *   The session's version is the last patch's, or the snapshot's.
 * - triggers that drop the patches a snapshot replaces, and a deleted session's: a save stays one
 *   statement, which the service commits in one transaction with its own writes.
 */
export function createStateTables(db: SqliteDatabase, table: string): void {
  const patches = patchTable(table);
  db.transaction(() => {
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${table} (session_id TEXT PRIMARY KEY, version INTEGER NOT NULL, state TEXT NOT NULL, updated_at INTEGER NOT NULL, head TEXT)`,
    );
    const columns = db.prepare<[], { name: string }>(`PRAGMA table_info(${table})`).all();
    if (!columns.some((column) => column.name === "head"))
      db.exec(`ALTER TABLE ${table} ADD COLUMN head TEXT`);
    db.exec(`
CREATE TABLE IF NOT EXISTS ${patches} (session_id TEXT NOT NULL, version INTEGER NOT NULL, head TEXT NOT NULL, patch TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (session_id, version));
CREATE TRIGGER IF NOT EXISTS ${table}_snapshot AFTER UPDATE OF state ON ${table} BEGIN
  DELETE FROM ${patches} WHERE session_id = NEW.session_id AND version <= NEW.version;
END;
CREATE TRIGGER IF NOT EXISTS ${table}_delete AFTER DELETE ON ${table} BEGIN
  DELETE FROM ${patches} WHERE session_id = OLD.session_id;
END;`);
  }).immediate();
}

/**
 * The statements of a state table, as SQL text. Parameters are positional (`?`), repeated where a
 * value is used twice.
 */
export function stateStatements(table: string) {
  const patches = patchTable(table);
  /** session_id, session_id: the stored version (0: none) */
  const version = `COALESCE((SELECT MAX(version) FROM ${patches} WHERE session_id = ?), (SELECT version FROM ${table} WHERE session_id = ?), 0)`;
  return {
    version: `SELECT ${version} AS version`,
    loadSnapshot: `SELECT version, state, head FROM ${table} WHERE session_id = ?`,
    loadPatches: `SELECT version, head, patch FROM ${patches} WHERE session_id = ? ORDER BY version`,
    /** limit, or after, limit */
    list: (after: boolean) =>
      `SELECT s.session_id, COALESCE(p.version, s.version) AS version, COALESCE(p.updated_at, s.updated_at) AS updated_at
       FROM ${table} AS s LEFT JOIN ${patches} AS p ON p.session_id = s.session_id
         AND p.version = (SELECT MAX(version) FROM ${patches} WHERE session_id = s.session_id)
       ${after ? "WHERE s.session_id > ?" : ""} ORDER BY s.session_id LIMIT ?`,
    /** session_id, state, updated_at, head: a new session's snapshot (changes nothing if it exists) */
    insert: `INSERT INTO ${table} (session_id, version, state, updated_at, head) VALUES (?, 1, ?, ?, ?) ON CONFLICT (session_id) DO NOTHING`,
    /** expected, state, head, updated_at, session_id, session_id, session_id, expected */
    snapshot: `UPDATE ${table} SET version = ? + 1, state = ?, head = ?, updated_at = ? WHERE session_id = ? AND ${version} = ?`,
    /**
     * session_id, expected, head, patch, updated_at, base, session_id, expected, session_id, expected,
     * session_id, expected: the patch, if the save at `expected` is the last one and has head `base`
     */
    patch: `INSERT INTO ${patches} (session_id, version, head, patch, updated_at) SELECT ?, ? + 1, ?, ?, ?
      WHERE ? = COALESCE((SELECT head FROM ${patches} WHERE session_id = ? AND version = ?), (SELECT head FROM ${table} WHERE session_id = ? AND version = ?))
        AND NOT EXISTS (SELECT 1 FROM ${patches} WHERE session_id = ? AND version > ?)
      ON CONFLICT DO NOTHING`,
    remove: `DELETE FROM ${table} WHERE session_id = ?`,
  };
}
