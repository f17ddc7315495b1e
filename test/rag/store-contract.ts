import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChunkRecord, Metadata, VectorStore } from "../../src/rag/index.js";
import { HashEmbedding } from "../../src/testing/index.js";

const DIM = 32;
const embedder = new HashEmbedding({ dimensions: DIM });

/** A chunk record whose vector is the hash embedding of its text. */
export function record(
  documentId: string,
  chunkIndex: number,
  text: string,
  metadata: Metadata = {},
): ChunkRecord {
  return {
    documentId,
    chunkIndex,
    text,
    source: `${documentId}.txt`,
    metadata,
    vector: embedder.vectorOf(text),
  };
}

const CORPUS: ChunkRecord[] = [
  record("cats", 0, "Cats purr when they are content and sleep most of the day.", {
    tenant: "a",
    year: 2020,
    kind: "pet",
  }),
  record("cats", 1, "A cat's whiskers sense the width of openings.", {
    tenant: "a",
    year: 2020,
    kind: "pet",
  }),
  record("dogs", 0, "Dogs bark at strangers and fetch sticks in the park.", {
    tenant: "a",
    year: 2022,
    kind: "pet",
  }),
  record("rust", 0, "Rust prevents data races with ownership and borrowing.", {
    tenant: "b",
    year: 2023,
    kind: "code",
  }),
  {
    ...record("rust", 1, "The borrow checker enforces ownership rules at compile time.", {
      tenant: "b",
      year: 2023,
      kind: "code",
    }),
    page: 2,
    headingPath: ["Rust", "Borrowing"],
  },
];

/**
 * The behaviour every VectorStore must have (the contract on the VectorStore type). `open` gives a
 * fresh store; `collectionName` gives a collection name no other run uses.
 */
export function vectorStoreContract(
  name: string,
  open: () => Promise<VectorStore>,
  collectionName: (suffix: string) => string = (s) => `c_${s}_${process.pid}`,
): void {
  describe(`VectorStore contract: ${name}`, () => {
    let store: VectorStore;
    const main = collectionName("main");

    beforeAll(async () => {
      store = await open();
      await store.deleteCollection(main);
      await store.createCollection(main, { dimensions: DIM });
      await store.upsert(main, CORPUS);
    });
    afterAll(async () => {
      await store?.deleteCollection(main);
      await store?.close();
    });

    it("creates collections idempotently and refuses other dimensions", async () => {
      expect(await store.hasCollection(main)).toBe(true);
      await store.createCollection(main, { dimensions: DIM });
      await expect(store.createCollection(main, { dimensions: DIM + 1 })).rejects.toThrow(/dimensions/);
      expect(await store.hasCollection(collectionName("never_made"))).toBe(false);
    });

    it("names a missing collection in the error", async () => {
      const missing = collectionName("missing");
      await expect(store.search(missing, { vector: embedder.vectorOf("x"), topK: 1 })).rejects.toThrow(
        missing,
      );
      await expect(store.upsert(missing, [record("d", 0, "x")])).rejects.toThrow(missing);
    });

    it("finds the closest chunk first, scored by cosine similarity, with its location", async () => {
      const hits = await store.search(main, {
        vector: embedder.vectorOf("borrow checker ownership rules"),
        topK: 3,
      });
      expect(hits).toHaveLength(3);
      expect(hits[0]?.chunk).toMatchObject({
        documentId: "rust",
        chunkIndex: 1,
        page: 2,
        headingPath: ["Rust", "Borrowing"],
      });
      expect(hits[0]?.chunk.source).toBe("rust.txt");
      expect(hits[0]?.chunk.metadata).toEqual({ tenant: "b", year: 2023, kind: "code" });
      expect(hits[0]?.score).toBeGreaterThan(0.5);
      expect(hits[0]?.score).toBeLessThanOrEqual(1.0001);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
      const exact = await store.search(main, { vector: CORPUS[2]!.vector, topK: 1 });
      expect(exact[0]?.score).toBeCloseTo(1, 4);
      expect(exact[0]?.chunk).not.toHaveProperty("vector");
    });

    it("applies metadata filters: equality, $in, $ne, $nin and numeric ranges", async () => {
      const query = embedder.vectorOf("ownership borrowing cats dogs");
      const ids = async (filter: Record<string, unknown>) =>
        (await store.search(main, { vector: query, topK: 10, filter: filter as never }))
          .map((h) => `${h.chunk.documentId}#${h.chunk.chunkIndex}`)
          .sort();
      expect(await ids({ tenant: "a" })).toEqual(["cats#0", "cats#1", "dogs#0"]);
      expect(await ids({ tenant: "b", year: 2023 })).toEqual(["rust#0", "rust#1"]);
      expect(await ids({ tenant: { $in: ["b", "z"] } })).toEqual(["rust#0", "rust#1"]);
      expect(await ids({ kind: { $ne: "pet" } })).toEqual(["rust#0", "rust#1"]);
      expect(await ids({ kind: { $nin: ["code"] } })).toEqual(["cats#0", "cats#1", "dogs#0"]);
      expect(await ids({ year: { $gte: 2022, $lt: 2023 } })).toEqual(["dogs#0"]);
      expect(await ids({ missing_key: "x" })).toEqual([]);
      expect(await ids({ tenant: "nobody" })).toEqual([]);
      await expect(store.search(main, { vector: query, topK: 1, filter: { "bad key'": 1 } })).rejects.toThrow(
        /not allowed/,
      );
    });

    it("rejects vectors of the wrong length without writing anything", async () => {
      const bad = { ...record("bad", 1, "wrong"), vector: [1, 2, 3] };
      await expect(store.upsert(main, [record("bad", 0, "fine"), bad])).rejects.toThrow(/dimensions/);
      expect(await store.listChunks(main, { documentId: "bad" })).toEqual([]);
      await expect(store.search(main, { vector: [1], topK: 1 })).rejects.toThrow(/dimensions/);
    });

    it("upserts by (documentId, chunkIndex)", async () => {
      const c = collectionName("upsert");
      await store.createCollection(c, { dimensions: DIM });
      try {
        await store.upsert(c, [record("doc", 0, "first version"), record("doc", 1, "second chunk")]);
        await store.upsert(c, [record("doc", 0, "replaced text")]);
        const chunks = await store.listChunks(c);
        expect(chunks.map((ch) => ch.text)).toEqual(["replaced text", "second chunk"]);
      } finally {
        await store.deleteCollection(c);
      }
      expect(await store.hasCollection(c)).toBe(false);
    });

    it("replaces a document's chunks as a whole, and keeps the old ones when the new ones are bad", async () => {
      const c = collectionName("replace");
      await store.createCollection(c, { dimensions: DIM });
      try {
        await store.upsert(c, [
          record("doc", 0, "old zero"),
          record("doc", 1, "old one"),
          record("doc", 2, "old two"),
        ]);
        await store.upsert(c, [record("other", 0, "untouched")]);
        await store.replaceDocument(c, "doc", [record("doc", 0, "new zero")]);
        expect((await store.listChunks(c, { documentId: "doc" })).map((ch) => ch.text)).toEqual(["new zero"]);
        const bad = { ...record("doc", 1, "bad"), vector: [0] };
        await expect(store.replaceDocument(c, "doc", [record("doc", 0, "x"), bad])).rejects.toThrow();
        expect((await store.listChunks(c)).map((ch) => ch.text)).toEqual(["new zero", "untouched"]);
      } finally {
        await store.deleteCollection(c);
      }
    });

    it("deletes a document, only the chunks matching a filter when one is given", async () => {
      const c = collectionName("delete");
      await store.createCollection(c, { dimensions: DIM });
      try {
        await store.upsert(c, [
          record("doc", 0, "a", { tenant: "a" }),
          record("doc", 1, "b", { tenant: "b" }),
        ]);
        await store.upsert(c, [record("keep", 0, "k", { tenant: "a" })]);
        expect(await store.deleteDocument(c, "doc", { tenant: "b" })).toBe(1);
        expect(await store.deleteDocument(c, "doc")).toBe(1);
        expect(await store.deleteDocument(c, "doc")).toBe(0);
        expect((await store.listDocuments(c)).map((d) => d.documentId)).toEqual(["keep"]);
      } finally {
        await store.deleteCollection(c);
      }
    });

    it("lists documents and chunks in order, filtered and paged", async () => {
      const docs = await store.listDocuments(main);
      expect(docs.map((d) => [d.documentId, d.chunkCount])).toEqual([
        ["cats", 2],
        ["dogs", 1],
        ["rust", 2],
      ]);
      expect(docs[0]).toMatchObject({
        source: "cats.txt",
        metadata: { tenant: "a", year: 2020, kind: "pet" },
      });
      expect((await store.listDocuments(main, { filter: { tenant: "b" } })).map((d) => d.documentId)).toEqual(
        ["rust"],
      );
      const chunks = await store.listChunks(main, { offset: 1, limit: 3 });
      expect(chunks.map((ch) => `${ch.documentId}#${ch.chunkIndex}`)).toEqual(["cats#1", "dogs#0", "rust#0"]);
      expect((await store.listChunks(main, { documentId: "rust" })).map((ch) => ch.chunkIndex)).toEqual([
        0, 1,
      ]);
      expect(await store.listChunks(main, { documentId: "cats", filter: { tenant: "b" } })).toEqual([]);
    });

    it("ranks by keyword relevance when the store supports keyword search", async () => {
      if (!store.capabilities.keyword || !store.keywordSearch) return;
      const hits = await store.keywordSearch(main, { text: "whiskers", topK: 5 });
      expect(hits.map((h) => `${h.chunk.documentId}#${h.chunk.chunkIndex}`)).toEqual(["cats#1"]);
      expect(hits[0]?.score).toBeGreaterThan(0);
      const filtered = await store.keywordSearch(main, {
        text: "ownership",
        topK: 5,
        filter: { tenant: "a" },
      });
      expect(filtered).toEqual([]);
      const both = await store.keywordSearch(main, { text: "ownership borrowing", topK: 5 });
      expect(both.map((h) => h.chunk.documentId)).toEqual(["rust", "rust"]);
      expect(await store.keywordSearch(main, { text: "zebra", topK: 5 })).toEqual([]);
      expect(await store.keywordSearch(main, { text: "\"'*(:-", topK: 5 })).toEqual([]);
    });
  });
}
