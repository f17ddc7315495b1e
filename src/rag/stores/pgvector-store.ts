import type { Pool, PoolClient } from "pg";
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
import { compileSqlFilter } from "./sql-filter.js";

export interface PgVectorStoreOptions {
  /** `postgres://...`; ignored when `pool` is given. */
  connectionString?: string;
  /** A pg Pool to use (left open by `close`). */
  pool?: Pool;
}

interface ChunkRow {
  document_id: string;
  chunk_index: number;
  text: string;
  source: string;
  location: Record<string, unknown>;
  metadata: Record<string, string | number | boolean>;
}

const CHUNK_COLUMNS = "c.document_id, c.chunk_index, c.text, c.source, c.location, c.metadata";

/** A PostgreSQL condition for a filter; parameters are appended to `params` ($n numbering continues). */
function pgFilter(filter: MetadataFilter | undefined, params: unknown[]): string {
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  return compileSqlFilter(filter, {
    param,
    equals: (key, value) => `c.metadata -> ${param(key)} = ${param(JSON.stringify(value))}::jsonb`,
    number: (key) => {
      const k = param(key);
      return `(CASE WHEN jsonb_typeof(c.metadata -> ${k}) = 'number' THEN (c.metadata ->> ${k})::float8 END)`;
    },
  });
}

const vectorLiteral = (vector: readonly number[]) => `[${vector.join(",")}]`;

function rowToChunk(row: ChunkRow): Chunk {
  return {
    ...row.location,
    documentId: row.document_id,
    chunkIndex: row.chunk_index,
    text: row.text,
    source: row.source,
    metadata: row.metadata,
  };
}

/**
 * PostgreSQL with pgvector, what production runs: one table per collection (named after its id in
 * a `rag_collections` registry) with a `vector(n)` column under an HNSW cosine index and a generated
 * `tsvector` under GIN for keyword search (`ts_rank_cd`). Writes run in one transaction.
 */
export class PgVectorStore implements VectorStore {
  readonly kind = "pgvector";
  readonly capabilities = { keyword: true };
  readonly #options: PgVectorStoreOptions;
  #pool: Promise<Pool> | undefined;

  constructor(options: PgVectorStoreOptions | string) {
    this.#options = typeof options === "string" ? { connectionString: options } : options;
  }

  async createCollection(name: string, options: CollectionOptions): Promise<void> {
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1)
      throw dimensionMismatch(name, 0, options.dimensions);
    await this.#transaction(async (client) => {
      await client.query("LOCK TABLE rag_collections IN EXCLUSIVE MODE");
      const existing = await this.#find(client, name);
      if (existing) {
        if (existing.dimensions !== options.dimensions)
          throw dimensionMismatch(name, existing.dimensions, options.dimensions);
        return;
      }
      const { rows } = await client.query<{ id: number }>(
        "INSERT INTO rag_collections (name, dimensions) VALUES ($1, $2) RETURNING id",
        [name, options.dimensions],
      );
      const t = `rag_c${rows[0]?.id}`;
      await client.query(`CREATE TABLE ${t} (
        id BIGSERIAL PRIMARY KEY, document_id TEXT NOT NULL, chunk_index INTEGER NOT NULL, text TEXT NOT NULL,
        source TEXT NOT NULL, location JSONB NOT NULL, metadata JSONB NOT NULL, embedding vector(${options.dimensions}) NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED, UNIQUE (document_id, chunk_index))`);
      await client.query(`CREATE INDEX ${t}_embedding ON ${t} USING hnsw (embedding vector_cosine_ops)`);
      await client.query(`CREATE INDEX ${t}_tsv ON ${t} USING gin (tsv)`);
    });
  }

  async deleteCollection(name: string): Promise<void> {
    await this.#transaction(async (client) => {
      const existing = await this.#find(client, name);
      if (!existing) return;
      await client.query(`DROP TABLE IF EXISTS rag_c${existing.id}`);
      await client.query("DELETE FROM rag_collections WHERE id = $1", [existing.id]);
    });
  }

  async hasCollection(name: string): Promise<boolean> {
    const pool = await this.#open();
    const client = await pool.connect();
    try {
      return (await this.#find(client, name)) !== undefined;
    } finally {
      client.release();
    }
  }

  async upsert(collection: string, records: readonly ChunkRecord[]): Promise<void> {
    await this.#write(collection, records, async (client, t) => {
      for (const record of records) {
        await client.query(`DELETE FROM ${t} WHERE document_id = $1 AND chunk_index = $2`, [
          record.documentId,
          record.chunkIndex,
        ]);
        await this.#insert(client, t, record);
      }
    });
  }

  async replaceDocument(
    collection: string,
    documentId: string,
    records: readonly ChunkRecord[],
  ): Promise<void> {
    await this.#write(collection, records, async (client, t) => {
      await client.query(`DELETE FROM ${t} WHERE document_id = $1`, [documentId]);
      for (const record of records) await this.#insert(client, t, { ...record, documentId });
    });
  }

  async deleteDocument(collection: string, documentId: string, filter?: MetadataFilter): Promise<number> {
    const { t } = await this.#collection(collection);
    const params: unknown[] = [documentId];
    const where = pgFilter(filter, params);
    const result = await (await this.#open()).query(
      `DELETE FROM ${t} c WHERE c.document_id = $1 AND ${where}`,
      params,
    );
    return result.rowCount ?? 0;
  }

  async search(collection: string, query: VectorSearchQuery): Promise<SearchHit[]> {
    const { t, dimensions } = await this.#collection(collection);
    checkTopK(query.topK);
    checkVector(collection, dimensions, query.vector, "the query vector");
    const params: unknown[] = [vectorLiteral(query.vector), query.topK];
    const where = pgFilter(query.filter, params);
    const { rows } = await (await this.#open()).query<ChunkRow & { distance: number }>(
      `SELECT ${CHUNK_COLUMNS}, c.embedding <=> $1::vector AS distance FROM ${t} c WHERE ${where}
       ORDER BY distance, c.document_id, c.chunk_index LIMIT $2`,
      params,
    );
    return rows.map((row) => ({ chunk: rowToChunk(row), score: 1 - Number(row.distance) }));
  }

  async keywordSearch(collection: string, query: KeywordSearchQuery): Promise<SearchHit[]> {
    const { t } = await this.#collection(collection);
    checkTopK(query.topK);
    const terms = [...new Set(keywordTokens(query.text))];
    if (terms.length === 0) return [];
    const params: unknown[] = [terms.join(" | "), query.topK];
    const where = pgFilter(query.filter, params);
    const { rows } = await (await this.#open()).query<ChunkRow & { score: number }>(
      `SELECT ${CHUNK_COLUMNS}, ts_rank_cd(c.tsv, to_tsquery('simple', $1)) AS score FROM ${t} c
       WHERE c.tsv @@ to_tsquery('simple', $1) AND ${where}
       ORDER BY score DESC, c.document_id, c.chunk_index LIMIT $2`,
      params,
    );
    return rows.map((row) => ({
      chunk: rowToChunk(row),
      score: Math.max(Number(row.score), Number.EPSILON),
    }));
  }

  async listDocuments(
    collection: string,
    options: { filter?: MetadataFilter } = {},
  ): Promise<DocumentInfo[]> {
    return documentsFromChunks(this, collection, options.filter);
  }

  async listChunks(collection: string, options: ListChunksOptions = {}): Promise<Chunk[]> {
    const { t } = await this.#collection(collection);
    const params: unknown[] = [];
    let sql = `SELECT ${CHUNK_COLUMNS} FROM ${t} c WHERE ${pgFilter(options.filter, params)}`;
    if (options.documentId !== undefined) {
      params.push(options.documentId);
      sql += ` AND c.document_id = $${params.length}`;
    }
    params.push(options.limit ?? null, options.offset ?? 0);
    sql += ` ORDER BY c.document_id, c.chunk_index LIMIT $${params.length - 1} OFFSET $${params.length}`;
    const { rows } = await (await this.#open()).query<ChunkRow>(sql, params);
    return rows.map(rowToChunk);
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool && !this.#options.pool) await (await pool).end();
  }

  #open(): Promise<Pool> {
    this.#pool ??= (async () => {
      let pool = this.#options.pool;
      if (!pool) {
        const pg = await importOptional(() => import("pg"), "pg", "the pgvector store");
        pool = new pg.default.Pool({ connectionString: this.#options.connectionString });
      }
      await pool.query("CREATE EXTENSION IF NOT EXISTS vector");
      await pool.query(
        "CREATE TABLE IF NOT EXISTS rag_collections (id SERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, dimensions INTEGER NOT NULL)",
      );
      return pool;
    })().catch((error) => {
      this.#pool = undefined;
      throw error;
    });
    return this.#pool;
  }

  async #find(client: PoolClient, name: string): Promise<{ id: number; dimensions: number } | undefined> {
    const { rows } = await client.query<{ id: number; dimensions: number }>(
      "SELECT id, dimensions FROM rag_collections WHERE name = $1",
      [name],
    );
    return rows[0];
  }

  async #collection(name: string): Promise<{ t: string; dimensions: number }> {
    const pool = await this.#open();
    const { rows } = await pool.query<{ id: number; dimensions: number }>(
      "SELECT id, dimensions FROM rag_collections WHERE name = $1",
      [name],
    );
    const found = rows[0];
    if (!found) throw missingCollection(this.kind, name);
    return { t: `rag_c${found.id}`, dimensions: found.dimensions };
  }

  async #write(
    collection: string,
    records: readonly ChunkRecord[],
    body: (client: PoolClient, t: string) => Promise<void>,
  ): Promise<void> {
    const { t, dimensions } = await this.#collection(collection);
    checkRecords(collection, dimensions, records);
    await this.#transaction((client) => body(client, t));
  }

  async #transaction<T>(body: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await (await this.#open()).connect();
    try {
      await client.query("BEGIN");
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  async #insert(client: PoolClient, t: string, record: ChunkRecord): Promise<void> {
    const { page, sheet, slide, headingPath } = record;
    await client.query(
      `INSERT INTO ${t} (document_id, chunk_index, text, source, location, metadata, embedding) VALUES ($1, $2, $3, $4, $5, $6, $7::vector)`,
      [
        record.documentId,
        record.chunkIndex,
        record.text,
        record.source,
        JSON.stringify({ page, sheet, slide, headingPath }),
        JSON.stringify(record.metadata),
        vectorLiteral(record.vector),
      ],
    );
  }
}
