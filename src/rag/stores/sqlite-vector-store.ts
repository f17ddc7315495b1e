import { resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import {
  betterSqliteDatabase,
  openSqlite,
  type SqliteDatabase,
  type SqliteValue,
} from "../../state/sqlite/sqlite-driver.js";
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
import { exactSearch } from "./sqlite-exact-search.js";
import {
  checkVectorSearchOption,
  layoutFor,
  loadVectorSearch,
  needsSqliteVec,
  type SqliteVectorSearch,
  type SqliteVectorSearchOption,
  type VectorLayout,
} from "./sqlite-vector-search.js";

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
  /**
   * How vectors are searched (see SqliteVectorSearch): `auto` (default) uses sqlite-vec where it is
   * installed and loads, else an exact scan in JavaScript; `sqlite-vec` requires it; `exact` never
   * loads it. Chosen once, when the store opens; `vectorSearch` on the store says which runs.
   */
  vectorSearch?: SqliteVectorSearchOption;
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
  vectors: VectorLayout;
}

/** An open collection: its tables' prefix and how it keeps its vectors. */
interface OpenCollection {
  db: SqliteDatabase;
  t: string;
  dimensions: number;
  vectors: VectorLayout;
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
 * missing or does not load: see the state's `openSqlite`), keyword search through FTS5 (BM25), and
 * vectors (cosine) in a `sqlite-vec` vec0 table where sqlite-vec is installed, else as Float32 blobs
 * searched exactly in JavaScript (`vectorSearch`). Each collection is three tables named after its id
 * in a `rag_collections` registry, so any collection name is safe; it keeps the vector layout it was
 * created with (a vec0 one needs sqlite-vec to be searched or written). Writes run in one transaction.
 * With sqlite-vec, filtered searches scan the matching chunks exactly; unfiltered ones use vec0's KNN.
 */
export class SqliteVectorStore implements VectorStore {
  readonly kind = "sqlite";
  readonly capabilities = { keyword: true };
  readonly path: string;
  readonly #options: SqliteVectorStoreOptions;
  readonly #vectorSearch: SqliteVectorSearchOption;
  #db: Promise<SqliteDatabase> | undefined;
  #search: SqliteVectorSearch | undefined;

  constructor(options: SqliteVectorStoreOptions | string = {}) {
    this.#options = typeof options === "string" ? { path: options } : options;
    this.#vectorSearch = checkVectorSearchOption(this.#options.vectorSearch);
    const path = this.#options.path ?? DEFAULT_SQLITE_VECTOR_PATH;
    this.path = path === ":memory:" ? path : resolve(path);
  }

  /**
   * Which vector search runs: `sqlite-vec` or `exact` (JavaScript). Undefined until the store has
   * opened (its first call; `open()` opens it and answers this).
   */
  get vectorSearch(): SqliteVectorSearch | undefined {
    return this.#search;
  }

  /** Opens the store now (else its first call does); answers the vector search it runs. */
  async open(): Promise<SqliteVectorSearch> {
    await this.#open();
    return this.#search as SqliteVectorSearch;
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
    const vectors = layoutFor(this.#search as SqliteVectorSearch);
    db.transaction(() => {
      const { lastInsertRowid } = db
        .prepare("INSERT INTO rag_collections (name, dimensions, vectors) VALUES (?, ?, ?)")
        .run(name, options.dimensions, vectors);
      const t = `rag_c${Number(lastInsertRowid)}`;
      db.exec(`CREATE TABLE ${t}_chunks (
        id INTEGER PRIMARY KEY, document_id TEXT NOT NULL, chunk_index INTEGER NOT NULL, text TEXT NOT NULL,
        source TEXT NOT NULL, location TEXT NOT NULL, metadata TEXT NOT NULL, UNIQUE (document_id, chunk_index))`);
      if (vectors === "vec0")
        db.exec(
          `CREATE VIRTUAL TABLE ${t}_vec USING vec0(embedding float[${options.dimensions}] distance_metric=cosine)`,
        );
      else db.exec(`CREATE TABLE ${t}_blobs (id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)`);
      db.exec(`CREATE VIRTUAL TABLE ${t}_fts USING fts5(text, tokenize = 'unicode61')`);
    })();
  }

  async deleteCollection(name: string): Promise<void> {
    const db = await this.#open();
    const existing = this.#find(db, name);
    if (!existing) return;
    this.#checkVectors(name, existing.vectors); // a vec0 table cannot be dropped without its module
    const t = `rag_c${existing.id}`;
    const vectors = existing.vectors === "vec0" ? `${t}_vec` : `${t}_blobs`;
    db.transaction(() => {
      db.exec(
        `DROP TABLE IF EXISTS ${t}_chunks; DROP TABLE IF EXISTS ${vectors}; DROP TABLE IF EXISTS ${t}_fts`,
      );
      db.prepare("DELETE FROM rag_collections WHERE id = ?").run(existing.id);
    })();
  }

  async hasCollection(name: string): Promise<boolean> {
    return this.#find(await this.#open(), name) !== undefined;
  }

  async upsert(collection: string, records: readonly ChunkRecord[]): Promise<void> {
    const open = await this.#writable(collection);
    checkRecords(collection, open.dimensions, records);
    open.db.transaction(() => {
      for (const record of records) {
        this.#deleteWhere(open, "c.document_id = ? AND c.chunk_index = ?", [
          record.documentId,
          record.chunkIndex,
        ]);
        this.#insert(open, record);
      }
    })();
  }

  async replaceDocument(
    collection: string,
    documentId: string,
    records: readonly ChunkRecord[],
  ): Promise<void> {
    const open = await this.#writable(collection);
    checkRecords(collection, open.dimensions, records);
    open.db.transaction(() => {
      this.#deleteWhere(open, "c.document_id = ?", [documentId]);
      for (const record of records) this.#insert(open, { ...record, documentId });
    })();
  }

  async deleteDocument(collection: string, documentId: string, filter?: MetadataFilter): Promise<number> {
    const open = await this.#writable(collection);
    const where = sqliteFilter(filter);
    return open.db.transaction(() =>
      this.#deleteWhere(open, `${where.sql} AND c.document_id = ?`, [...where.params, documentId]),
    )();
  }

  async search(collection: string, query: VectorSearchQuery): Promise<SearchHit[]> {
    const open = await this.#writable(collection);
    const { db, t, dimensions } = open;
    checkTopK(query.topK);
    checkVector(collection, dimensions, query.vector, "the query vector");
    const vector = toBlob(query.vector);
    if (open.vectors === "blob") return this.#exactSearch(open, vector, query);
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

  /** A collection of Float32 blobs: scanned in JavaScript (see exactSearch), then its chunks read. */
  #exactSearch(open: OpenCollection, vector: Float32Array, query: VectorSearchQuery): SearchHit[] {
    const { db, t } = open;
    const hits = exactSearch(db, t, vector, sqliteFilter(query.filter), query.topK);
    if (hits.length === 0) return [];
    const rows = db
      .prepare<SqliteValue[], ChunkRow>(
        `SELECT ${CHUNK_COLUMNS} FROM ${t}_chunks c WHERE c.id IN (${hits.map(() => "?").join(", ")})`,
      )
      .all(...hits.map((hit) => hit.id));
    const byId = new Map(rows.map((row) => [Number(row.id), row]));
    return hits.flatMap((hit) => {
      const row = byId.get(hit.id);
      return row ? [{ chunk: rowToChunk(row), score: 1 - hit.distance }] : [];
    });
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
      const given = this.#options.database;
      let db: SqliteDatabase;
      if (given) db = "driver" in given ? given : betterSqliteDatabase(given);
      else {
        db = await openSqlite(this.path, "the SQLite vector store", { extensions: true });
        db.exec("PRAGMA journal_mode = WAL");
        db.exec("PRAGMA busy_timeout = 5000");
      }
      this.#search = await loadVectorSearch(db, this.#vectorSearch);
      db.exec(
        "CREATE TABLE IF NOT EXISTS rag_collections (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, dimensions INTEGER NOT NULL, vectors TEXT NOT NULL DEFAULT 'vec0')",
      );
      // A file from before the blob layout: every collection in it is a vec0 one (the default).
      const columns = db.prepare<[], { name: string }>("PRAGMA table_info(rag_collections)").all();
      if (!columns.some((column) => column.name === "vectors"))
        db.exec("ALTER TABLE rag_collections ADD COLUMN vectors TEXT NOT NULL DEFAULT 'vec0'");
      return db;
    })();
    return this.#db;
  }

  #find(db: SqliteDatabase, name: string): CollectionRow | undefined {
    return db.prepare("SELECT id, dimensions, vectors FROM rag_collections WHERE name = ?").get(name) as
      | CollectionRow
      | undefined;
  }

  async #collection(name: string): Promise<OpenCollection> {
    const db = await this.#open();
    const found = this.#find(db, name);
    if (!found) throw missingCollection(this.kind, name);
    return { db, t: `rag_c${found.id}`, dimensions: found.dimensions, vectors: found.vectors };
  }

  /** A collection whose vectors this store can read and write (a vec0 one needs sqlite-vec loaded). */
  async #writable(name: string): Promise<OpenCollection> {
    const open = await this.#collection(name);
    this.#checkVectors(name, open.vectors);
    return open;
  }

  #checkVectors(name: string, vectors: VectorLayout): void {
    if (vectors === "vec0" && this.#search !== "sqlite-vec") throw needsSqliteVec(name);
  }

  #insert({ db, t, vectors }: OpenCollection, record: ChunkRecord): void {
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
    if (vectors === "vec0")
      db.prepare(`INSERT INTO ${t}_vec (rowid, embedding) VALUES (?, ?)`).run(id, toBlob(record.vector));
    else db.prepare(`INSERT INTO ${t}_blobs (id, embedding) VALUES (?, ?)`).run(id, toBlob(record.vector));
    db.prepare(`INSERT INTO ${t}_fts (rowid, text) VALUES (?, ?)`).run(id, record.text);
  }

  /** Deletes the chunks matching `where` (over alias c) from all three tables; returns how many. */
  #deleteWhere({ db, t, vectors }: OpenCollection, where: string, params: SqliteValue[]): number {
    const ids = db
      .prepare<SqliteValue[], { id: number }>(`SELECT c.id FROM ${t}_chunks c WHERE ${where}`)
      .all(...params)
      .map((row) => row.id);
    for (const id of ids) {
      if (vectors === "vec0") db.prepare(`DELETE FROM ${t}_vec WHERE rowid = ?`).run(BigInt(id));
      else db.prepare(`DELETE FROM ${t}_blobs WHERE id = ?`).run(id);
      db.prepare(`DELETE FROM ${t}_fts WHERE rowid = ?`).run(id);
      db.prepare(`DELETE FROM ${t}_chunks WHERE id = ?`).run(id);
    }
    return ids.length;
  }
}
