import type { Connection, Table } from "@lancedb/lancedb";
import { RagError } from "../errors.js";
import { matchesFilter } from "../filter.js";
import { importOptional } from "../readers/lazy-import.js";
import type {
  Chunk,
  ChunkRecord,
  CollectionOptions,
  DocumentInfo,
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
  compareChunks,
  dimensionMismatch,
  documentsFromChunks,
  missingCollection,
  page,
} from "./record-checks.js";

export interface LanceDbVectorStoreOptions {
  /** Directory of the embedded database (or a LanceDB URI). */
  uri: string;
}

interface LanceRow {
  id: string;
  document_id: string;
  chunk_index: number;
  text: string;
  source: string;
  location: string;
  metadata: string;
  _distance?: number;
}

const TABLE_NAME = /^[A-Za-z0-9_-]{1,128}$/;
const sqlString = (value: string) => `'${value.replace(/'/g, "''")}'`;

function toRow(record: ChunkRecord) {
  const { page: p, sheet, slide, headingPath } = record;
  return {
    id: `${record.documentId}\u0000${record.chunkIndex}`,
    document_id: record.documentId,
    chunk_index: record.chunkIndex,
    text: record.text,
    source: record.source,
    location: JSON.stringify({ page: p, sheet, slide, headingPath }),
    metadata: JSON.stringify(record.metadata),
    vector: record.vector,
  };
}

function toChunk(row: LanceRow): Chunk {
  return {
    ...(JSON.parse(row.location) as object),
    documentId: row.document_id,
    chunkIndex: Number(row.chunk_index),
    text: row.text,
    source: row.source,
    metadata: JSON.parse(row.metadata),
  };
}

/**
 * LanceDB embedded (a dedicated vector database in a directory, no server): one table per
 * collection. Writes are single `mergeInsert` commits, so replacing a document is atomic. Metadata
 * is kept as JSON and filters run in process after an exact cosine scan (exact, O(chunks)); no
 * keyword search, so knowledge bases on it search by vector.
 */
export class LanceDbVectorStore implements VectorStore {
  readonly kind = "lancedb";
  readonly capabilities = { keyword: false };
  readonly #uri: string;
  #connection: Promise<Connection> | undefined;

  constructor(options: LanceDbVectorStoreOptions | string) {
    this.#uri = typeof options === "string" ? options : options.uri;
  }

  async createCollection(name: string, options: CollectionOptions): Promise<void> {
    checkName(name);
    const db = await this.#open();
    if ((await db.tableNames()).includes(name)) {
      const existing = await this.#dimensionsOf(await db.openTable(name));
      if (existing !== options.dimensions) throw dimensionMismatch(name, existing, options.dimensions);
      return;
    }
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1)
      throw dimensionMismatch(name, 0, options.dimensions);
    const arrow = await importOptional(() => import("apache-arrow"), "apache-arrow", "the LanceDB store");
    const utf8 = () => new arrow.Utf8();
    const schema = new arrow.Schema([
      new arrow.Field("id", utf8(), false),
      new arrow.Field("document_id", utf8(), false),
      new arrow.Field("chunk_index", new arrow.Int32(), false),
      new arrow.Field("text", utf8(), false),
      new arrow.Field("source", utf8(), false),
      new arrow.Field("location", utf8(), false),
      new arrow.Field("metadata", utf8(), false),
      new arrow.Field(
        "vector",
        new arrow.FixedSizeList(options.dimensions, new arrow.Field("item", new arrow.Float32(), true)),
        false,
      ),
    ]);
    await db.createEmptyTable(name, schema, { existOk: true });
  }

  async deleteCollection(name: string): Promise<void> {
    checkName(name);
    const db = await this.#open();
    if ((await db.tableNames()).includes(name)) await db.dropTable(name);
  }

  async hasCollection(name: string): Promise<boolean> {
    checkName(name);
    return (await (await this.#open()).tableNames()).includes(name);
  }

  async upsert(collection: string, records: readonly ChunkRecord[]): Promise<void> {
    const { table, dimensions } = await this.#table(collection);
    checkRecords(collection, dimensions, records);
    if (records.length === 0) return;
    await table
      .mergeInsert("id")
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .execute(records.map(toRow));
  }

  async replaceDocument(
    collection: string,
    documentId: string,
    records: readonly ChunkRecord[],
  ): Promise<void> {
    const { table, dimensions } = await this.#table(collection);
    checkRecords(collection, dimensions, records);
    const where = `document_id = ${sqlString(documentId)}`;
    if (records.length === 0) {
      await table.delete(where);
      return;
    }
    await table
      .mergeInsert("id")
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .whenNotMatchedBySourceDelete({ where })
      .execute(records.map((record) => toRow({ ...record, documentId })));
  }

  async deleteDocument(collection: string, documentId: string, filter?: MetadataFilter): Promise<number> {
    const { table } = await this.#table(collection);
    const chunks = (await this.#rows(table, `document_id = ${sqlString(documentId)}`)).filter((row) =>
      matchesFilter(JSON.parse(row.metadata), filter),
    );
    if (chunks.length === 0) return 0;
    await table.delete(`id IN (${chunks.map((row) => sqlString(row.id)).join(", ")})`);
    return chunks.length;
  }

  async search(collection: string, query: VectorSearchQuery): Promise<SearchHit[]> {
    const { table, dimensions } = await this.#table(collection);
    checkTopK(query.topK);
    checkVector(collection, dimensions, query.vector, "the query vector");
    matchesFilter({}, query.filter); // validates the filter
    const total = await table.countRows();
    if (total === 0) return [];
    const rows = (await table
      .vectorSearch(query.vector)
      .distanceType("cosine")
      .limit(query.filter ? total : query.topK)
      .toArray()) as LanceRow[];
    return rows
      .map((row) => ({ chunk: toChunk(row), score: 1 - Number(row._distance) }))
      .filter((hit) => matchesFilter(hit.chunk.metadata, query.filter))
      .sort((a, b) => b.score - a.score || compareChunks(a.chunk, b.chunk))
      .slice(0, query.topK);
  }

  async listDocuments(
    collection: string,
    options: { filter?: MetadataFilter } = {},
  ): Promise<DocumentInfo[]> {
    return documentsFromChunks(this, collection, options.filter);
  }

  async listChunks(collection: string, options: ListChunksOptions = {}): Promise<Chunk[]> {
    const { table } = await this.#table(collection);
    const where =
      options.documentId !== undefined ? `document_id = ${sqlString(options.documentId)}` : undefined;
    const chunks = (await this.#rows(table, where))
      .map(toChunk)
      .filter((chunk) => matchesFilter(chunk.metadata, options.filter))
      .sort(compareChunks);
    return page(chunks, options.offset, options.limit);
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection) (await connection).close();
  }

  #open(): Promise<Connection> {
    this.#connection ??= importOptional(
      () => import("@lancedb/lancedb"),
      "@lancedb/lancedb",
      "the LanceDB store",
    ).then((lancedb) => lancedb.connect(this.#uri));
    return this.#connection;
  }

  async #table(name: string): Promise<{ table: Table; dimensions: number }> {
    checkName(name);
    const db = await this.#open();
    if (!(await db.tableNames()).includes(name)) throw missingCollection(this.kind, name);
    const table = await db.openTable(name);
    return { table, dimensions: await this.#dimensionsOf(table) };
  }

  async #dimensionsOf(table: Table): Promise<number> {
    const field = (await table.schema()).fields.find((f) => f.name === "vector");
    return (field?.type as { listSize?: number } | undefined)?.listSize ?? 0;
  }

  async #rows(table: Table, where: string | undefined): Promise<LanceRow[]> {
    const query = table
      .query()
      .select(["id", "document_id", "chunk_index", "text", "source", "location", "metadata"]);
    return (await (where ? query.where(where) : query).toArray()) as LanceRow[];
  }
}

function checkName(name: string): void {
  if (!TABLE_NAME.test(name)) {
    throw new RagError(
      `LanceDB collection name "${name}" is not allowed: use letters, digits, _ and - (up to 128)`,
    );
  }
}
