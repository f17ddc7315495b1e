import { installCommand } from "../../state/lazy-driver.js";
import type { SqliteDatabase } from "../../state/sqlite/sqlite-driver.js";
import { RagError } from "../errors.js";
import { importOptional } from "../readers/lazy-import.js";

/**
 * How a SqliteVectorStore searches vectors: `sqlite-vec` (the optional native extension, its vec0
 * tables) or `exact` (a scan in JavaScript over the vectors stored as Float32 blobs: no package).
 * Both rank by cosine similarity, filter the same way and order ties alike.
 */
export type SqliteVectorSearch = "sqlite-vec" | "exact";

/** What a store is asked for: `auto` (the default) is sqlite-vec where it is installed and loads, else `exact`. */
export type SqliteVectorSearchOption = "auto" | SqliteVectorSearch;

const CHOICES: readonly SqliteVectorSearchOption[] = ["auto", "sqlite-vec", "exact"];

/** How one collection keeps its vectors (`rag_collections.vectors`): a vec0 table or Float32 blobs. */
export type VectorLayout = "vec0" | "blob";

/** The layout a store creates collections in, for the search it runs. */
export const layoutFor = (search: SqliteVectorSearch): VectorLayout =>
  search === "sqlite-vec" ? "vec0" : "blob";

/** `value` as a vectorSearch option, or a TypeError naming the choices. */
export function checkVectorSearchOption(value: unknown): SqliteVectorSearchOption {
  if (value === undefined) return "auto";
  if (CHOICES.includes(value as SqliteVectorSearchOption)) return value as SqliteVectorSearchOption;
  throw new TypeError(
    `SqliteVectorStore: vectorSearch ${JSON.stringify(value)} is not one of ${CHOICES.map((c) => `"${c}"`).join(", ")}`,
  );
}

/**
 * The search `db` runs, chosen once when the store opens: sqlite-vec loaded into it (asked for, or
 * `auto` where it imports and loads), else the exact scan. Asked for, sqlite-vec must load.
 */
export async function loadVectorSearch(
  db: SqliteDatabase,
  asked: SqliteVectorSearchOption,
): Promise<SqliteVectorSearch> {
  if (asked === "exact") return "exact";
  try {
    const sqliteVec = await importOptional(
      () => import("sqlite-vec"),
      "sqlite-vec",
      'the SQLite vector store with vectorSearch "sqlite-vec"',
    );
    sqliteVec.load(db);
    return "sqlite-vec";
  } catch (error) {
    if (asked === "sqlite-vec") throw error;
    return "exact";
  }
}

/** A collection in sqlite-vec's tables, opened by a store that has no sqlite-vec. */
export function needsSqliteVec(collection: string): RagError {
  return new RagError(
    `collection "${collection}" keeps its vectors in a sqlite-vec table, and sqlite-vec is not loaded: ${installCommand("sqlite-vec")} (or create the collection again: without sqlite-vec it is searched exactly in JavaScript)`,
  );
}
