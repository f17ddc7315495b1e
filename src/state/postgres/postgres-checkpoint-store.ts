import type { Pool } from "pg";
import type {
  CheckpointBlob,
  CheckpointStore,
  StoredCheckpointRecord,
} from "../checkpoint/checkpoint-store.js";
import { importDriver } from "../lazy-driver.js";
import { redactUrl } from "../redact-url.js";
import { checkTableName } from "../sql-names.js";
import type { PgQueryable } from "./postgres-store.js";

export interface PostgresCheckpointStoreOptions {
  /** `postgres://` URL; ignored when `client` is given. */
  url?: string;
  /** A pg Pool or Client to use instead (left open by `close`). */
  client?: PgQueryable;
  /** Prefix of the two tables (`<table>_blobs`, `<table>_records`); default `agentscope_checkpoints`. */
  table?: string;
}

/** Session checkpoints in PostgreSQL: one row per blob (`bytea`) and per record. */
export class PostgresCheckpointStore implements CheckpointStore {
  readonly #options: PostgresCheckpointStoreOptions;
  readonly #table: string;
  #db: Promise<PgQueryable> | undefined;
  #pool: Pool | undefined;

  constructor(options: PostgresCheckpointStoreOptions = {}) {
    this.#options = options;
    this.#table = checkTableName(options.table ?? "agentscope_checkpoints");
  }

  #open(): Promise<PgQueryable> {
    this.#db ??= (async () => {
      const t = this.#table;
      const schema = `CREATE TABLE IF NOT EXISTS ${t}_blobs (session_id text COLLATE "C" NOT NULL, hash text NOT NULL, size integer NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (session_id, hash));
        CREATE TABLE IF NOT EXISTS ${t}_records (session_id text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, json text NOT NULL, PRIMARY KEY (session_id, key));`;
      if (this.#options.client) {
        await this.#options.client.query(schema);
        return this.#options.client;
      }
      const { Pool: PgPool } = await importDriver(() => import("pg"), "pg", "PostgresCheckpointStore");
      const url = this.#options.url ?? "postgres://127.0.0.1:5432/postgres";
      const pool = new PgPool({ connectionString: url });
      pool.on("error", () => {});
      try {
        await pool.query(schema);
      } catch (error) {
        await pool.end().catch(() => {});
        this.#db = undefined;
        throw new Error(
          `PostgresCheckpointStore cannot prepare ${redactUrl(url)}: ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
      this.#pool = pool;
      return pool;
    })();
    return this.#db;
  }

  async putBlobs(sessionId: string, blobs: readonly CheckpointBlob[]): Promise<number> {
    if (blobs.length === 0) return 0;
    const db = await this.#open();
    const { rows } = await db.query(
      `INSERT INTO ${this.#table}_blobs (session_id, hash, size, bytes)
       SELECT $1, h, s, b FROM unnest($2::text[], $3::integer[], $4::bytea[]) AS t(h, s, b)
       ON CONFLICT DO NOTHING RETURNING size`,
      [
        sessionId,
        blobs.map((blob) => blob.hash),
        blobs.map((blob) => blob.bytes.byteLength),
        blobs.map((blob) => Buffer.from(blob.bytes.buffer, blob.bytes.byteOffset, blob.bytes.byteLength)),
      ],
    );
    return rows.reduce((sum: number, row: { size: number }) => sum + Number(row.size), 0);
  }

  async getBlobs(sessionId: string, hashes: readonly string[]): Promise<Map<string, Uint8Array>> {
    if (hashes.length === 0) return new Map();
    const db = await this.#open();
    const { rows } = await db.query(
      `SELECT hash, bytes FROM ${this.#table}_blobs WHERE session_id = $1 AND hash = ANY($2::text[])`,
      [sessionId, [...hashes]],
    );
    return new Map(rows.map((row: { hash: string; bytes: Buffer }) => [row.hash, new Uint8Array(row.bytes)]));
  }

  async missingBlobs(sessionId: string, hashes: readonly string[]): Promise<string[]> {
    if (hashes.length === 0) return [];
    const db = await this.#open();
    const { rows } = await db.query(
      `SELECT hash FROM ${this.#table}_blobs WHERE session_id = $1 AND hash = ANY($2::text[])`,
      [sessionId, [...hashes]],
    );
    const held = new Set(rows.map((row: { hash: string }) => row.hash));
    return hashes.filter((hash) => !held.has(hash));
  }

  async blobSizes(sessionId: string): Promise<Map<string, number>> {
    const db = await this.#open();
    const { rows } = await db.query(`SELECT hash, size FROM ${this.#table}_blobs WHERE session_id = $1`, [
      sessionId,
    ]);
    return new Map(rows.map((row: { hash: string; size: number }) => [row.hash, Number(row.size)]));
  }

  async deleteBlobs(sessionId: string, hashes: readonly string[]): Promise<void> {
    if (hashes.length === 0) return;
    const db = await this.#open();
    await db.query(`DELETE FROM ${this.#table}_blobs WHERE session_id = $1 AND hash = ANY($2::text[])`, [
      sessionId,
      [...hashes],
    ]);
  }

  async putRecord(sessionId: string, key: string, json: string): Promise<void> {
    const db = await this.#open();
    await db.query(
      `INSERT INTO ${this.#table}_records (session_id, key, json) VALUES ($1, $2, $3) ON CONFLICT (session_id, key) DO UPDATE SET json = excluded.json`,
      [sessionId, key, json],
    );
  }

  async records(sessionId: string): Promise<StoredCheckpointRecord[]> {
    const db = await this.#open();
    const { rows } = await db.query(
      `SELECT key, json FROM ${this.#table}_records WHERE session_id = $1 ORDER BY key`,
      [sessionId],
    );
    return rows.map((row: StoredCheckpointRecord) => ({ key: row.key, json: row.json }));
  }

  async deleteRecords(sessionId: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const db = await this.#open();
    await db.query(`DELETE FROM ${this.#table}_records WHERE session_id = $1 AND key = ANY($2::text[])`, [
      sessionId,
      [...keys],
    ]);
  }

  async deleteSession(sessionId: string): Promise<void> {
    const db = await this.#open();
    await db.query(`DELETE FROM ${this.#table}_blobs WHERE session_id = $1`, [sessionId]);
    await db.query(`DELETE FROM ${this.#table}_records WHERE session_id = $1`, [sessionId]);
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    this.#db = undefined;
    await pool?.end();
  }
}
