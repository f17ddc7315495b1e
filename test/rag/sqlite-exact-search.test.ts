import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { type ChunkRecord, type MetadataFilter, SqliteVectorStore } from "../../src/rag/index.js";
import { loadSqliteDriver, openSqlite } from "../../src/state/sqlite/sqlite-driver.js";
import { record, vectorStoreContract } from "./store-contract.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const hasSqliteVec = await import("sqlite-vec").then(
  () => true,
  () => false,
);
const hasNodeSqlite = (() => {
  try {
    require("node:sqlite");
    return true;
  } catch {
    return false;
  }
})();

/** A store on node:sqlite whatever driver the process would pick. */
async function onNodeSqlite(vectorSearch: "exact" | "sqlite-vec") {
  const database = (await loadSqliteDriver("node:sqlite", "test")).open(":memory:", { extensions: true });
  return { store: new SqliteVectorStore({ database, vectorSearch }), database };
}

vectorStoreContract(
  "sqlite, exact search in JavaScript (no sqlite-vec)",
  async () => new SqliteVectorStore({ path: ":memory:", vectorSearch: "exact" }),
);
describe.runIf(hasNodeSqlite)("on node:sqlite", () => {
  vectorStoreContract("sqlite on node:sqlite, exact search in JavaScript", async () => {
    const { store } = await onNodeSqlite("exact");
    return store;
  });
});

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});
async function tempFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agentscope-rag-exact-"));
  dirs.push(dir);
  return join(dir, "vectors.db");
}

/** A deterministic generator of numbers in [-1, 1) (mulberry32). */
function numbers(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 31 - 1;
  };
}

const DIM = 16;
const next = numbers(38);
const vectorOf = () => Array.from({ length: DIM }, next);
// Document ids whose UTF-8 order differs from JavaScript's UTF-16 order (U+FF5E sorts after U+1F600
// in UTF-16 code units, before it in UTF-8 bytes), so ties must go by SQLite's BINARY order.
const IDS = ["alpha", "Beta", "zeta", "é", "\uff5e", "\u{1f600}", "doc-10", "doc-9"];
const CORPUS: ChunkRecord[] = Array.from({ length: 96 }, (_, i) => ({
  documentId: IDS[i % IDS.length] as string,
  chunkIndex: Math.floor(i / IDS.length),
  text: `chunk ${i}`,
  source: "corpus.txt",
  metadata: { tenant: i % 3 === 0 ? "b" : "a", year: 2000 + (i % 5), even: i % 2 === 0 },
  vector: vectorOf(),
}));
// Ties: the same vector in several chunks (they come in document id, then chunk index order).
const TIED = CORPUS[5]!.vector;
for (const i of [12, 19, 24]) CORPUS[i] = { ...CORPUS[i]!, vector: TIED };
const QUERIES = [TIED, ...Array.from({ length: 4 }, vectorOf)];
const FILTERS: (MetadataFilter | undefined)[] = [
  undefined,
  { tenant: "a" },
  { year: { $gte: 2002 } },
  { tenant: { $in: ["b"] }, year: { $lt: 2003 } },
  { even: true, tenant: { $ne: "b" } },
];

/** Every query × filter × topK against `store`: the hits' ids in order, and their scores. */
async function answers(store: SqliteVectorStore) {
  await store.createCollection("same", { dimensions: DIM });
  await store.upsert("same", CORPUS);
  const all: { ids: string[]; scores: number[] }[] = [];
  for (const vector of QUERIES)
    for (const filter of FILTERS)
      for (const topK of [1, 7, 200]) {
        const hits = await store.search("same", { vector, topK, ...(filter ? { filter } : {}) });
        all.push({
          ids: hits.map((hit) => `${hit.chunk.documentId}#${hit.chunk.chunkIndex}`),
          scores: hits.map((hit) => hit.score),
        });
      }
  await store.close();
  return all;
}

function expectSameAnswers(
  actual: Awaited<ReturnType<typeof answers>>,
  expected: Awaited<ReturnType<typeof answers>>,
) {
  expect(actual).toHaveLength(expected.length);
  for (const [i, answer] of expected.entries()) {
    expect(actual[i]!.ids).toEqual(answer.ids);
    for (const [k, score] of actual[i]!.scores.entries()) expect(score).toBeCloseTo(answer.scores[k]!, 5);
  }
}

describe("the exact search", () => {
  it("ranks by cosine similarity, ties by document id (SQLite's byte order) then chunk index", async () => {
    const store = new SqliteVectorStore({ path: ":memory:", vectorSearch: "exact" });
    await store.createCollection("c", { dimensions: DIM });
    await store.upsert("c", CORPUS);
    const hits = await store.search("c", { vector: TIED, topK: 4 });
    expect(hits.map((hit) => `${hit.chunk.documentId}#${hit.chunk.chunkIndex}`)).toEqual([
      "alpha#3", // CORPUS[24]
      "é#2", // CORPUS[19]
      "\uff5e#1", // CORPUS[12]: before U+1F600 in UTF-8, after it in UTF-16
      "\u{1f600}#0", // CORPUS[5]
    ]);
    for (const hit of hits) expect(hit.score).toBeCloseTo(1, 6);
    const cosine = (a: readonly number[], b: readonly number[]) => {
      const dot = a.reduce((sum, x, i) => sum + x * b[i]!, 0);
      return dot / Math.sqrt(a.reduce((s, x) => s + x * x, 0) * b.reduce((s, x) => s + x * x, 0));
    };
    const query = QUERIES[1]!;
    const [best] = await store.search("c", { vector: query, topK: 1, filter: { tenant: "b" } });
    const expected = CORPUS.filter((r) => r.metadata.tenant === "b")
      .map((r) => cosine(query, r.vector))
      .sort((a, b) => b - a)[0]!;
    expect(best!.chunk.metadata.tenant).toBe("b");
    expect(best!.score).toBeCloseTo(expected, 5); // Float32 storage: close, not equal
    await store.close();
  });

  it("gives a zero vector similarity 0, as the in-memory store does", async () => {
    const store = new SqliteVectorStore({ path: ":memory:", vectorSearch: "exact" });
    await store.createCollection("z", { dimensions: 3 });
    await store.upsert("z", [
      { ...record("zero", 0, "nothing"), vector: [0, 0, 0] },
      { ...record("one", 0, "something"), vector: [1, 0, 0] },
    ]);
    const hits = await store.search("z", { vector: [1, 0, 0], topK: 2 });
    expect(hits.map((hit) => [hit.chunk.documentId, hit.score])).toEqual([
      ["one", 1],
      ["zero", 0],
    ]);
    await store.close();
  });

  it("gives the same answers on better-sqlite3 and node:sqlite", async () => {
    const driver = await openSqlite(":memory:", "test", { extensions: true });
    const onDefault = await answers(new SqliteVectorStore({ database: driver, vectorSearch: "exact" }));
    driver.close();
    if (!hasNodeSqlite) return;
    const { store, database } = await onNodeSqlite("exact");
    expectSameAnswers(await answers(store), onDefault);
    database.close();
  });

  it("says which search runs once the store has opened; a bad choice is refused naming the choices", async () => {
    const store = new SqliteVectorStore({ path: ":memory:", vectorSearch: "exact" });
    expect(store.vectorSearch).toBeUndefined();
    expect(await store.open()).toBe("exact");
    expect(store.vectorSearch).toBe("exact");
    await store.close();
    const auto = new SqliteVectorStore(":memory:");
    expect(await auto.open()).toBe(hasSqliteVec ? "sqlite-vec" : "exact");
    await auto.close();
    expect(() => new SqliteVectorStore({ vectorSearch: "fast" as never })).toThrow(
      /vectorSearch "fast" is not one of "auto", "sqlite-vec", "exact"/,
    );
  });
});

describe.runIf(hasSqliteVec)("beside sqlite-vec", () => {
  it("gives the same answers as the sqlite-vec search on the same data", async () => {
    const exact = await answers(new SqliteVectorStore({ path: ":memory:", vectorSearch: "exact" }));
    const native = await answers(new SqliteVectorStore({ path: ":memory:", vectorSearch: "sqlite-vec" }));
    expectSameAnswers(exact, native);
    if (!hasNodeSqlite) return;
    const { store, database } = await onNodeSqlite("exact");
    expectSameAnswers(await answers(store), native);
    database.close();
  });

  it("a collection made with sqlite-vec, opened without it: its chunks list, its vectors name the package", async () => {
    const path = await tempFile();
    const native = new SqliteVectorStore({ path, vectorSearch: "sqlite-vec" });
    await native.createCollection("kb", { dimensions: 32 });
    await native.upsert("kb", [record("a", 0, "kept in vec0")]);
    await native.close();
    const exact = new SqliteVectorStore({ path, vectorSearch: "exact" });
    expect((await exact.listChunks("kb")).map((chunk) => chunk.text)).toEqual(["kept in vec0"]);
    await expect(exact.search("kb", { vector: record("q", 0, "x").vector, topK: 1 })).rejects.toThrow(
      /collection "kb" keeps its vectors in a sqlite-vec table.*npm install sqlite-vec@0\.1/,
    );
    await expect(exact.upsert("kb", [record("b", 0, "more")])).rejects.toThrow(/sqlite-vec/);
    // a collection it makes itself keeps Float32 blobs, which a store with sqlite-vec searches too
    await exact.createCollection("mine", { dimensions: 32 });
    await exact.upsert("mine", [record("m", 0, "a blob")]);
    await exact.close();
    const again = new SqliteVectorStore({ path, vectorSearch: "sqlite-vec" });
    const [hit] = await again.search("mine", { vector: record("m", 0, "a blob").vector, topK: 1 });
    expect(hit?.chunk.text).toBe("a blob");
    expect(hit?.score).toBeCloseTo(1, 5);
    await again.close();
  });

  it("opens a file from before the blob layout (no vectors column): its collections are sqlite-vec ones", async () => {
    const path = await tempFile();
    const first = new SqliteVectorStore({ path, vectorSearch: "sqlite-vec" });
    await first.createCollection("old", { dimensions: 32 });
    await first.upsert("old", [record("a", 0, "from an older version")]);
    await first.close();
    const raw = await openSqlite(path, "test");
    raw.exec("ALTER TABLE rag_collections DROP COLUMN vectors");
    raw.close();
    const reopened = new SqliteVectorStore({ path });
    const [hit] = await reopened.search("old", {
      vector: record("a", 0, "from an older version").vector,
      topK: 1,
    });
    expect(hit?.chunk.text).toBe("from an older version");
    await reopened.close();
  });
});

it("without the sqlite-vec package installed, the store opens on the exact search; asked for sqlite-vec, it names the install", async () => {
  // A fresh Node whose module resolution does not find sqlite-vec, as in a project that never installed it.
  const hide = `export async function resolve(specifier, context, next) {
    if (specifier === "sqlite-vec") throw Object.assign(new Error("Cannot find package 'sqlite-vec'"), { code: "ERR_MODULE_NOT_FOUND" });
    return next(specifier, context);
  }`;
  const store = JSON.stringify(fileURLToPath(new URL("../../src/rag/index.ts", import.meta.url)));
  const script = `import { register } from "node:module";
  register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hide)}));
  const { SqliteVectorStore } = await import(${store});
  const store = new SqliteVectorStore(":memory:");
  const search = await store.open();
  await store.createCollection("c", { dimensions: 2 });
  await store.upsert("c", [{ documentId: "d", chunkIndex: 0, text: "t", source: "s", metadata: {}, vector: [1, 0] }]);
  const hits = await store.search("c", { vector: [1, 0], topK: 1 });
  const asked = await new SqliteVectorStore({ path: ":memory:", vectorSearch: "sqlite-vec" }).open().catch((e) => e.message);
  console.log(JSON.stringify({ search, text: hits[0].chunk.text, asked }));`;
  const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    timeout: 30_000,
  });
  const answer = JSON.parse(stdout) as { search: string; text: string; asked: string };
  expect(answer).toMatchObject({ search: "exact", text: "t" });
  expect(answer.asked).toMatch(/needs the "sqlite-vec" package: npm install sqlite-vec@0\.1/);
}, 40_000);
