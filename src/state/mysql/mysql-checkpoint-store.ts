import type { Pool, ResultSetHeader, RowDataPacket } from "mysql2/promise";
import type {
  CheckpointBlob,
  CheckpointStore,
  StoredCheckpointRecord,
} from "../checkpoint/checkpoint-store.js";
import { OpenOnce } from "../open-once.js";
import { checkTableName } from "../sql-names.js";
import type { MySqlQueryable } from "./mysql-pool.js";
import { openMySqlPool } from "./mysql-pool.js";
import { SESSION_ID_TYPE } from "./mysql-session-id.js";

export interface MySqlCheckpointStoreOptions {
  /** `mysql://` (or `mariadb://`) URL; ignored when `client` is given. */
  url?: string;
  /** A mysql2/promise Pool or Connection to use instead (left open by `close`). */
  client?: MySqlQueryable;
  /** Prefix of the two tables (`<table>_blobs`, `<table>_records`); default `agentscope_checkpoints`. */
  table?: string;
}

/** Bytes of blobs per INSERT (well under MySQL's and MariaDB's default max_allowed_packet). */
const BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Session checkpoints in MySQL or MariaDB: one row per blob (`LONGBLOB`) and per record. Session ids
 * compare byte for byte (a VARBINARY key). Tables an earlier version made key them by a PAD SPACE
 * text column (`a` and `a ` one key): the first open converts that column in place, keeping the rows
 * (no foreign keys stand in the way; the conversion rebuilds the tables, so on large ones that first
 * open takes a while).
 */
export class MySqlCheckpointStore implements CheckpointStore {
  readonly #options: MySqlCheckpointStoreOptions;
  readonly #table: string;
  readonly #connection = new OpenOnce<MySqlQueryable>(() => this.#open());
  #pool: Pool | undefined;

  constructor(options: MySqlCheckpointStoreOptions = {}) {
    this.#options = options;
    this.#table = checkTableName(options.table ?? "agentscope_checkpoints");
  }

  async #createTables(db: MySqlQueryable): Promise<void> {
    const t = this.#table;
    await db.query(
      `CREATE TABLE IF NOT EXISTS ${t}_blobs (session_id ${SESSION_ID_TYPE} NOT NULL, hash CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL, size INT NOT NULL, bytes LONGBLOB NOT NULL, PRIMARY KEY (session_id, hash))`,
    );
    await db.query(
      `CREATE TABLE IF NOT EXISTS ${t}_records (session_id ${SESSION_ID_TYPE} NOT NULL, record_key VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL, json LONGTEXT NOT NULL, PRIMARY KEY (session_id, record_key))`,
    );
    const [texts] = await db.query<RowDataPacket[]>(
      `SELECT TABLE_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN (?, ?) AND COLUMN_NAME = 'session_id' AND DATA_TYPE <> 'varbinary'`,
      [`${t}_blobs`, `${t}_records`],
    );
    // an earlier version's text column: its UTF-8 bytes as they are (another process converting
    // it at the same time makes this a second, harmless conversion to the same type)
    for (const { name } of texts) {
      await db.query(`ALTER TABLE ${String(name)} MODIFY session_id ${SESSION_ID_TYPE} NOT NULL`);
    }
  }

  async #open(): Promise<MySqlQueryable> {
    if (this.#options.client) {
      await this.#createTables(this.#options.client);
      return this.#options.client;
    }
    const pool = await openMySqlPool(this.#options.url, "MySqlCheckpointStore", 4, (db) =>
      this.#createTables(db),
    );
    this.#pool = pool;
    return pool;
  }

  async putBlobs(sessionId: string, blobs: readonly CheckpointBlob[]): Promise<number> {
    const missing = new Set(
      await this.missingBlobs(
        sessionId,
        blobs.map((blob) => blob.hash),
      ),
    );
    const fresh = [...new Map(blobs.filter((b) => missing.has(b.hash)).map((b) => [b.hash, b])).values()];
    const db = await this.#connection.get();
    let stored = 0;
    for (let start = 0; start < fresh.length; ) {
      const batch: CheckpointBlob[] = [];
      let size = 0;
      while (
        start < fresh.length &&
        (batch.length === 0 || size + fresh[start]!.bytes.byteLength <= BATCH_BYTES)
      ) {
        size += fresh[start]!.bytes.byteLength;
        batch.push(fresh[start++]!);
      }
      // INSERT IGNORE: a blob another writer stored meanwhile is the same bytes
      await db.query<ResultSetHeader>(
        `INSERT IGNORE INTO ${this.#table}_blobs (session_id, hash, size, bytes) VALUES ${batch.map(() => "(?, ?, ?, ?)").join(", ")}`,
        batch.flatMap((blob) => [
          sessionId,
          blob.hash,
          blob.bytes.byteLength,
          Buffer.from(blob.bytes.buffer, blob.bytes.byteOffset, blob.bytes.byteLength),
        ]),
      );
      stored += size;
    }
    return stored;
  }

  async getBlobs(sessionId: string, hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    if (hashes.length === 0) return new Map();
    const db = await this.#connection.get();
    const [rows] = await db.query<RowDataPacket[]>(
      `SELECT hash, bytes FROM ${this.#table}_blobs WHERE session_id = ? AND hash IN (?)`,
      [sessionId, [...hashes]],
    );
    return new Map(rows.map((row) => [row.hash as string, new Uint8Array(row.bytes as Buffer)]));
  }

  async missingBlobs(sessionId: string, hashes: readonly string[]): Promise<string[]> {
    if (hashes.length === 0) return [];
    const db = await this.#connection.get();
    const [rows] = await db.query<RowDataPacket[]>(
      `SELECT hash FROM ${this.#table}_blobs WHERE session_id = ? AND hash IN (?)`,
      [sessionId, [...hashes]],
    );
    const held = new Set(rows.map((row) => row.hash as string));
    return hashes.filter((hash) => !held.has(hash));
  }

  async blobSizes(sessionId: string): Promise<Map<string, number>> {
    const db = await this.#connection.get();
    const [rows] = await db.query<RowDataPacket[]>(
      `SELECT hash, size FROM ${this.#table}_blobs WHERE session_id = ?`,
      [sessionId],
    );
    return new Map(rows.map((row) => [row.hash as string, Number(row.size)]));
  }

  async deleteBlobs(sessionId: string, hashes: readonly string[]): Promise<void> {
    if (hashes.length === 0) return;
    const db = await this.#connection.get();
    await db.query(`DELETE FROM ${this.#table}_blobs WHERE session_id = ? AND hash IN (?)`, [
      sessionId,
      [...hashes],
    ]);
  }

  async putRecord(sessionId: string, key: string, json: string): Promise<void> {
    const db = await this.#connection.get();
    await db.query(
      `INSERT INTO ${this.#table}_records (session_id, record_key, json) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE json = VALUES(json)`,
      [sessionId, key, json],
    );
  }

  async records(sessionId: string): Promise<StoredCheckpointRecord[]> {
    const db = await this.#connection.get();
    const [rows] = await db.query<RowDataPacket[]>(
      `SELECT record_key, json FROM ${this.#table}_records WHERE session_id = ? ORDER BY record_key`,
      [sessionId],
    );
    return rows.map((row) => ({ key: row.record_key as string, json: row.json as string }));
  }

  async deleteRecords(sessionId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const db = await this.#connection.get();
    await db.query(`DELETE FROM ${this.#table}_records WHERE session_id = ? AND record_key IN (?)`, [
      sessionId,
      [...keys],
    ]);
  }

  async deleteSession(sessionId: string): Promise<void> {
    const db = await this.#connection.get();
    await db.query(`DELETE FROM ${this.#table}_blobs WHERE session_id = ?`, [sessionId]);
    await db.query(`DELETE FROM ${this.#table}_records WHERE session_id = ?`, [sessionId]);
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    this.#connection.reset();
    await pool?.end();
  }
}
