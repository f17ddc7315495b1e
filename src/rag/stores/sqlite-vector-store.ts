import { resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import {
  betterSqliteDatabase,
  openSqlite,
  type SqliteDatabase,
  type SqliteValue,
} from "../../state/sqlite/sqlite-driver.js";
import { importOptional } from "../readers/lazy-import.js";
import { keywordTokens } from "../similarity.js";
import type {
  Chunk,
  ChunkRecord,
  CollectionOptions,
  DocumentInfo,
  KeywordSearchQuery,
  ListChunksOptions,
  MetadataFilter,
  SearchHit,
  VectorSearchQuery,
  VectorStore,
} from "../types.js";
import {
  checkRecords,
  checkTopK,
  checkVector,
  dimensionMismatch,
  documentsFromChunks,
  missingCollection,
} from "./record-checks.js";
import { compileSqlFilter, type SqlFilterDialect } from "./sql-filter.js";

/** Where the embedded default keeps vectors: beside the SQLite state store's `.agentscope/state.db`. */
export const DEFAULT_SQLITE_VECTOR_PATH = ".agentscope/vectors.db";

export interface SqliteVectorStoreOptions {
  /** Database file (`:memory:` for a private one); default `.agentscope/vectors.db`. */
  path?: string;
  /**
   * An open database to use instead (left open by `close`): a better-sqlite3 one, or either driver's
   * as the state's `openSqlite` gives it (opened with `extensions`).
   */
  database?: BetterSqlite3.Database | SqliteDatabase;
}

interface ChunkRow {
  id: number;
  document_id: string;
  chunk_index: number;
  text: string;
  source: string;
  location: string;
  metadata: string;
}

interface CollectionRow {
  id: number;
  dimensions: number;
}

const CHUNK_COLUMNS = "c.id, c.document_id, c.chunk_index, c.text, c.source, c.location, c.metadata";

function sqliteDialect(params: SqliteValue[]): SqlFilterDialect {
  const path = (key: string) => {
    params.push(`$."${key}"`);
    return "?";
  };
  return {
    param(value) {
      params.push(value as SqliteValue);
      return "?";
    },
    equals(key, value) {
      if (typeof value === "boolean")
        return `json_type(c.metadata, ${path(key)}) = '${value ? "true" : "false"}'`;
      const type = typeof value === "string" ? "('text')" : "('integer', 'real')";
      const typed = `json_type(c.metadata, ${path(key)}) IN ${type}`;
      const extracted = `json_extract(c.metadata, ${path(key)})`;
      params.push(value);
      return `${typed} AND ${extracted} = ?`;
    },
    number(key) {
      const typed = `json_type(c.metadata, ${path(key)}) IN ('integer', 'real')`;
      return `(CASE WHEN ${typed} THEN json_extract(c.metadata, ${path(key)}) END)`;
    },
  };
}

/** A SQLite condition for a filter, with its parameters (which come first in the statement). */
function sqliteFilter(filter: MetadataFilter | undefined): { sql: string; params: SqliteValue[] } {
  const params: SqliteValue[] = [];
  const sql = compileSqlFilter(filter, sqliteDialect(params));
  return { sql, params };
}

const toBlob = (vector: readonly number[]) => new Float32Array(vector);

function rowToChunk(row: ChunkRow): Chunk {
  return {
    ...(JSON.parse(row.location) as object),
    documentId: row.document_id,
    chunkIndex: row.chunk_index,
    text: row.text,
    source: row.source,
    metadata: JSON.parse(row.metadata),
  };
}

function locationJson(record: ChunkRecord): string {
  const { page, sheet, slide, headingPath } = record;
  return JSON.stringify({ page, sheet, slide, headingPath });
}

/**
 * The embedded default: SQLite (better-sqlite3, or Node's own node:sqlite where better-sqlite3 is
 * missing or does not load: see the state's `openSqlite`), vectors in a `sqlite-vec` vec0 table (cosine),
 * keyword search through FTS5 (BM25). Each collection is three tables named after its id in a
 * `rag_collections` registry, so any collection name is safe. Writes run in one transaction.
 * Filtered vector searches scan the matching chunks exactly; unfiltered ones use vec0's KNN.
 */
export class SqliteVectorStore implements VectorStore {
  readonly kind = "sqlite";
  readonly capabilities = { keyword: true };
  readonly path: string;
  readonly #options: SqliteVectorStoreOptions;
  #db: Promise<SqliteDatabase> | undefined;

  constructor(options: SqliteVectorStoreOptions | string = {}) {
    this.#options = typeof options === "string" ? { path: options } : options;
    const path = this.#options.path ?? DEFAULT_SQLITE_VECTOR_PATH;
    this.path = path === ":memory:" ? path : resolve(path);
  }

  async createCollection(name: string, options: CollectionOptions): Promise<void> {
    const db = await this.#open();
    const existing = this.#find(db, name);
    if (existing) {
      if (existing.dimensions !== options.dimensions)
        throw dimensionMismatch(name, existing.dimensions, options.dimensions);
      return;
    }
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1) {
      throw dimensionMismatch(name, 0, options.dimensions);
    }
    db.transaction(() => {
      const { lastInsertRowid } = db
        .prepare("INSERT INTO rag_collections (name, dimensions) VALUES (?, ?)")
        .run(name, options.dimensions);
      const t = `rag_c${Number(lastInsertRowid)}`;
      db.exec(`CREATE TABLE ${t}_chunks (
        id INTEGER PRIMARY KEY, document_id TEXT NOT NULL, chunk_index INTEGER NOT NULL, text TEXT NOT NULL,
        source TEXT NOT NULL, location TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (document_id, chunk_index))`);
      db.exec(
        `CREATE VIRTUAL TABLE ${t}_vec USING vec0(embedding float[${options.dimensions}] distance_metric=cosine)`,
      );
      db.exec(`CREATE VIRTUAL TABLE ${t}_fts USING fts5(text, tokenize = 'unicode61')`);
    })();
  }

  async deleteCollection(name: string): Promise<void> {
    const db = await this.#open();
    const existing = this.#find(db, name);
    if (!existing) return;
    const t = `rag_c${existing.id}`;
    db.transaction(() => {
      db.exec(
        `DROP TABLE IF EXISTS ${t}_chunks; DROP TABLE IF EXISTS ${t}_vec; DROP TABLE IF EXISTS ${t}_fts`,
      );
      db.prepare("DELETE FROM rag_collections WHERE id = ?").run(existing.id);
    })();
  }

  async hasCollection(name: string): Promise<boolean> {
    return this.#find(await this.#open(), name) !== undefined;
  }

  async upsert(collection: string, records: readonly ChunkRecord[]): Promise<void> {
    const { db, t, dimensions } = await this.#collection(collection);
    checkRecords(collection, dimensions, records);
    db.transaction(() => {
      for (const record of records) {
        this.#deleteWhere(db, t, "c.document_id = ? AND c.chunk_index = ?", [
          record.documentId,
          record.chunkIndex,
        ]);
        this.#insert(db, t, record);
      }
    })();
  }

  async replaceDocument(
    collection: string,
    documentId: string,
    records: readonly ChunkRecord[],
  ): Promise<void> {
    const { db, t, dimensions } = await this.#collection(collection);
    checkRecords(collection, dimensions, records);
    db.transaction(() => {
      this.#deleteWhere(db, t, "c.document_id = ?", [documentId]);
      for (const record of records) this.#insert(db, t, { ...record, documentId });
    })();
  }

  async deleteDocument(collection: string, documentId: string, filter?: MetadataFilter): Promise<number> {
    const { db, t } = await this.#collection(collection);
    const where = sqliteFilter(filter);
    return db.transaction(() =>
      this.#deleteWhere(db, t, `${where.sql} AND c.document_id = ?`, [...where.params, documentId]),
    )();
  }

  async search(collection: string, query: VectorSearchQuery): Promise<SearchHit[]> {
    const { db, t, dimensions } = await this.#collection(collection);
    checkTopK(query.topK);
    checkVector(collection, dimensions, query.vector, "the query vector");
    const vector = toBlob(query.vector);
    let rows: (ChunkRow & { distance: number })[];
    if (query.filter === undefined) {
      rows = db
        .prepare(
          `SELECT ${CHUNK_COLUMNS}, v.distance FROM (SELECT rowid, distance FROM ${t}_vec WHERE embedding MATCH ? AND k = ?) v
           JOIN ${t}_chunks c ON c.id = v.rowid ORDER BY v.distance, c.document_id, c.chunk_index`,
        )
        .all(vector, query.topK) as (ChunkRow & { distance: number })[];
    } else {
      const where = sqliteFilter(query.filter);
      rows = db
        .prepare(
          `SELECT ${CHUNK_COLUMNS}, vec_distance_cosine(v.embedding, ?) AS distance FROM ${t}_chunks c
           JOIN ${t}_vec v ON v.rowid = c.id WHERE ${where.sql}
           ORDER BY distance, c.document_id, c.chunk_index LIMIT ?`,
        )
        .all(vector, ...where.params, query.topK) as (ChunkRow & { distance: number })[];
    }
    return rows.map((row) => ({ chunk: rowToChunk(row), score: 1 - row.distance }));
  }

  async keywordSearch(collection: string, query: KeywordSearchQuery): Promise<SearchHit[]> {
    const { db, t } = await this.#collection(collection);
    checkTopK(query.topK);
    const terms = [...new Set(keywordTokens(query.text))];
    if (terms.length === 0) return [];
    const match = terms.map((term) => `"${term}"`).join(" OR ");
    const where = sqliteFilter(query.filter);
    const rows = db
      .prepare(
        `SELECT ${CHUNK_COLUMNS}, -bm25(${t}_fts) AS score FROM ${t}_fts f JOIN ${t}_chunks c ON c.id = f.rowid
         WHERE ${t}_fts MATCH ? AND ${where.sql} ORDER BY score DESC, c.document_id, c.chunk_index LIMIT ?`,
      )
      .all(match, ...where.params, query.topK) as (ChunkRow & { score: number })[];
    // FTS5's bm25 is negative-is-better and tiny for terms in most rows; keep scores positive.
    return rows.map((row) => ({ chunk: rowToChunk(row), score: Math.max(row.score, Number.EPSILON) }));
  }

  async listDocuments(
    collection: string,
    options: { filter?: MetadataFilter } = {},
  ): Promise<DocumentInfo[]> {
    return documentsFromChunks(this, collection, options.filter);
  }

  async listChunks(collection: string, options: ListChunksOptions = {}): Promise<Chunk[]> {
    const { db, t } = await this.#collection(collection);
    const where = sqliteFilter(options.filter);
    const params: SqliteValue[] = [...where.params];
    let sql = `SELECT ${CHUNK_COLUMNS} FROM ${t}_chunks c WHERE ${where.sql}`;
    if (options.documentId !== undefined) {
      sql += " AND c.document_id = ?";
      params.push(options.documentId);
    }
    sql += " ORDER BY c.document_id, c.chunk_index LIMIT ? OFFSET ?";
    params.push(options.limit ?? -1, options.offset ?? 0);
    return (db.prepare(sql).all(...params) as ChunkRow[]).map(rowToChunk);
  }

  async close(): Promise<void> {
    const db = this.#db;
    this.#db = undefined;
    if (db && !this.#options.database) (await db).close();
  }

  async #open(): Promise<SqliteDatabase> {
    this.#db ??= (async () => {
      const sqliteVec = await importOptional(
        () => import("sqlite-vec"),
        "sqlite-vec",
        "the SQLite vector store",
      );
      const given = this.#options.database;
      let db: SqliteDatabase;
      if (given) db = "driver" in given ? given : betterSqliteDatabase(given);
      else {
        db = await openSqlite(this.path, "the SQLite vector store", { extensions: true });
        db.exec("PRAGMA journal_mode = WAL");
        db.exec("PRAGMA busy_timeout = 5000");
      }
      sqliteVec.load(db);
      db.exec(
        "CREATE TABLE IF NOT EXISTS rag_collections (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, dimensions INTEGER NOT NULL)",
      );
      return db;
    })();
    return this.#db;
  }

  #find(db: SqliteDatabase, name: string): CollectionRow | undefined {
    return db.prepare("SELECT id, dimensions FROM rag_collections WHERE name = ?").get(name) as
      | CollectionRow
      | undefined;
  }

  async #collection(name: string): Promise<{ db: SqliteDatabase; t: string; dimensions: number }> {
    const db = await this.#open();
    const found = this.#find(db, name);
    if (!found) throw missingCollection(this.kind, name);
    return { db, t: `rag_c${found.id}`, dimensions: found.dimensions };
  }

  #insert(db: SqliteDatabase, t: string, record: ChunkRecord): void {
    const { lastInsertRowid } = db
      .prepare(
        `INSERT INTO ${t}_chunks (document_id, chunk_index, text, source, location, metadata) VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.documentId,
        record.chunkIndex,
        record.text,
        record.source,
        locationJson(record),
        JSON.stringify(record.metadata),
      );
    const id = BigInt(lastInsertRowid);
    db.prepare(`INSERT INTO ${t}_vec (rowid, embedding) VALUES (?, ?)`).run(id, toBlob(record.vector));
    db.prepare(`INSERT INTO ${t}_fts (rowid, text) VALUES (?, ?)`).run(id, record.text);
  }

  /** Deletes the chunks matching `where` (over alias c) from all three tables; returns how many. */
  #deleteWhere(db: SqliteDatabase, t: string, where: string, params: SqliteValue[]): number {
    const ids = db
      .prepare<SqliteValue[], { id: number }>(`SELECT c.id FROM ${t}_chunks c WHERE ${where}`)
      .all(...params)
      .map((row) => row.id);
    for (const id of ids) {
      db.prepare(`DELETE FROM ${t}_vec WHERE rowid = ?`).run(BigInt(id));
      db.prepare(`DELETE FROM ${t}_fts WHERE rowid = ?`).run(id);
      db.prepare(`DELETE FROM ${t}_chunks WHERE id = ?`).run(id);
    }
    return ids.length;
  }
}
