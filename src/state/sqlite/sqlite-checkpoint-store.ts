import { resolve } from "node:path";
import type {
  CheckpointBlob,
  CheckpointStore,
  StoredCheckpointRecord,
} from "../checkpoint/checkpoint-store.js";
import { checkTableName } from "../sql-names.js";
import { openSqlite, type SqliteDatabase } from "./sqlite-driver.js";

export interface SqliteCheckpointStoreOptions {
  /** Database file (the service's own file may be shared: the tables are apart); `:memory:` for a private one. */
  path: string;
  /** Prefix of the two tables (`<table>_blobs`, `<table>_records`); default `agentscope_checkpoints`. */
  table?: string;
}

/** Session checkpoints in SQLite: one row per blob (its bytes as a BLOB) and per record. */
export class SqliteCheckpointStore implements CheckpointStore {
  readonly path: string;
  readonly #table: string;
  #db: Promise<SqliteDatabase> | undefined;

  constructor(options: SqliteCheckpointStoreOptions) {
    this.path = options.path === ":memory:" ? options.path : resolve(options.path);
    this.#table = checkTableName(options.table ?? "agentscope_checkpoints");
  }

  #open(): Promise<SqliteDatabase> {
    this.#db ??= (async () => {
      const db = await openSqlite(this.path, "SqliteCheckpointStore");
      db.exec("PRAGMA busy_timeout = 5000");
      db.exec("PRAGMA journal_mode = WAL");
      const t = this.#table;
      db.exec(
        `CREATE TABLE IF NOT EXISTS ${t}_blobs (session_id TEXT NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (session_id, hash)) WITHOUT ROWID;
         CREATE TABLE IF NOT EXISTS ${t}_records (session_id TEXT NOT NULL, key TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (session_id, key)) WITHOUT ROWID;`,
      );
      return db;
    })();
    return this.#db;
  }

  async putBlobs(sessionId: string, blobs: readonly CheckpointBlob[]): Promise<number> {
    const db = await this.#open();
    const insert = db.prepare(
      `INSERT INTO ${this.#table}_blobs (session_id, hash, size, bytes) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
    );
    return db
      .transaction(() => {
        let added = 0;
        for (const blob of blobs) {
          if (Number(insert.run(sessionId, blob.hash, blob.bytes.byteLength, blob.bytes).changes) > 0)
            added += blob.bytes.byteLength;
        }
        return added;
      })
      .immediate();
  }

  async getBlobs(sessionId: string, hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    const db = await this.#open();
    const get = db.prepare<[string, string], { bytes: Uint8Array }>(
      `SELECT bytes FROM ${this.#table}_blobs WHERE session_id = ? AND hash = ?`,
    );
    const found = new Map<string, Uint8Array>();
    for (const hash of hashes) {
      const row = get.get(sessionId, hash);
      if (row) found.set(hash, new Uint8Array(row.bytes));
    }
    return found;
  }

  async missingBlobs(sessionId: string, hashes: readonly string[]): Promise<string[]> {
    const db = await this.#open();
    const has = db.prepare<[string, string], { one: number }>(
      `SELECT 1 AS one FROM ${this.#table}_blobs WHERE session_id = ? AND hash = ?`,
    );
    return hashes.filter((hash) => has.get(sessionId, hash) === undefined);
  }

  async blobSizes(sessionId: string): Promise<Map<string, number>> {
    const db = await this.#open();
    const rows = db
      .prepare<[string], { hash: string; size: number }>(
        `SELECT hash, size FROM ${this.#table}_blobs WHERE session_id = ?`,
      )
      .all(sessionId);
    return new Map(rows.map((row) => [row.hash, Number(row.size)]));
  }

  async deleteBlobs(sessionId: string, hashes: readonly string[]): Promise<void> {
    const db = await this.#open();
    const remove = db.prepare(`DELETE FROM ${this.#table}_blobs WHERE session_id = ? AND hash = ?`);
    db.transaction(() => {
      for (const hash of hashes) remove.run(sessionId, hash);
    }).immediate();
  }

  async putRecord(sessionId: string, key: string, json: string): Promise<void> {
    const db = await this.#open();
    db.prepare(
      `INSERT INTO ${this.#table}_records (session_id, key, json) VALUES (?, ?, ?) ON CONFLICT (session_id, key) DO UPDATE SET json = excluded.json`,
    ).run(sessionId, key, json);
  }

  async records(sessionId: string): Promise<StoredCheckpointRecord[]> {
    const db = await this.#open();
    return db
      .prepare<[string], StoredCheckpointRecord>(
        `SELECT key, json FROM ${this.#table}_records WHERE session_id = ? ORDER BY key`,
      )
      .all(sessionId)
      .map((row) => ({ key: row.key, json: row.json }));
  }

  async deleteRecords(sessionId: string, keys: readonly string[]): Promise<void> {
    const db = await this.#open();
    const remove = db.prepare(`DELETE FROM ${this.#table}_records WHERE session_id = ? AND key = ?`);
    db.transaction(() => {
      for (const key of keys) remove.run(sessionId, key);
    }).immediate();
  }

  async deleteSession(sessionId: string): Promise<void> {
    const db = await this.#open();
    db.transaction(() => {
      db.prepare(`DELETE FROM ${this.#table}_blobs WHERE session_id = ?`).run(sessionId);
      db.prepare(`DELETE FROM ${this.#table}_records WHERE session_id = ?`).run(sessionId);
    }).immediate();
  }

  async close(): Promise<void> {
    const db = this.#db;
    this.#db = undefined;
    if (db) (await db).close();
  }
}
