import { describe, expect, it } from "vitest";
import { AgentScopeError } from "../../src/message/index.js";
import type { EmbeddingModel } from "../../src/model/embedding.js";
import {
  InMemoryVectorStore,
  KnowledgeBase,
  RecursiveChunker,
  SqliteVectorStore,
  type VectorStore,
} from "../../src/rag/index.js";
import { HashEmbedding } from "../../src/testing/index.js";

const DOCS: Record<string, string> = {
  "reactor.md":
    "# Reactor\nThe aurora reactor runs at forty kelvin.\n# Maintenance\nMaintenance happens every Tuesday.",
  "garden.md": "# Garden\nTomatoes need six hours of sun. Basil grows beside them.",
  "codes.txt": "Error code ZX-81 means the coolant valve is stuck.",
};
const bytes = (text: string) => new TextEncoder().encode(text);

async function baseWithDocs(options: Partial<ConstructorParameters<typeof KnowledgeBase>[0]> = {}) {
  const kb = new KnowledgeBase({
    name: "docs",
    embedding: new HashEmbedding(),
    store: new InMemoryVectorStore(),
    ...options,
  });
  for (const [source, text] of Object.entries(DOCS)) await kb.insertDocument({ source, bytes: bytes(text) });
  return kb;
}

describe("KnowledgeBase", () => {
  it("indexes documents and finds the chunk that answers, with its source and heading", async () => {
    const kb = await baseWithDocs();
    const [hit] = await kb.search("How cold does the aurora reactor run?", { mode: "vector" });
    expect(hit?.chunk).toMatchObject({
      documentId: "reactor.md",
      source: "reactor.md",
      headingPath: ["Reactor"],
    });
    expect(hit?.knowledgeBase).toBe("docs");
    expect(await kb.listDocuments()).toEqual([
      expect.objectContaining({ documentId: "codes.txt", chunkCount: 1 }),
      expect.objectContaining({ documentId: "garden.md", chunkCount: 1 }),
      expect.objectContaining({ documentId: "reactor.md", chunkCount: 2 }),
    ]);
  });

  it("hybrid search (the default) finds an exact code that vector search ranks lower, by reciprocal rank fusion", async () => {
    const kb = await baseWithDocs();
    const keyword = await kb.search("ZX-81", { mode: "keyword" });
    expect(keyword[0]?.chunk.documentId).toBe("codes.txt");
    expect(keyword[0]?.keywordScore).toBeGreaterThan(0);
    const hybrid = await kb.search("ZX-81");
    expect(hybrid[0]?.chunk.documentId).toBe("codes.txt");
    expect(hybrid[0]?.vectorScore).toBeDefined();
    expect(hybrid[0]?.keywordScore).toBeDefined();
    expect(hybrid[0]?.score).toBeCloseTo(2 / 61, 6); // first in both lists
  });

  it("searches several queries at once, de-duplicating chunks and keeping the best score", async () => {
    const kb = await baseWithDocs();
    const hits = await kb.search(["aurora reactor kelvin", "reactor aurora", "tomatoes basil"], {
      topK: 10,
      mode: "vector",
    });
    const keys = hits.map((h) => `${h.chunk.documentId}#${h.chunk.chunkIndex}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.slice(0, 2).sort()).toEqual(["garden.md#0", "reactor.md#0"]);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    const embedding = kb.embedder.model as HashEmbedding;
    expect(embedding.calls.at(-1)).toHaveLength(3); // the queries were embedded in one batch
  });

  it("drops hits under the score threshold and truncates to topK", async () => {
    const kb = await baseWithDocs();
    expect(await kb.search("aurora reactor", { mode: "vector", topK: 1 })).toHaveLength(1);
    const strict = await kb.search("aurora reactor", { mode: "vector", topK: 10, scoreThreshold: 0.3 });
    expect(strict.length).toBeGreaterThan(0);
    expect(strict.every((h) => h.score >= 0.3)).toBe(true);
    expect(strict.length).toBeLessThan(4);
  });

  const STORES: [string, () => VectorStore][] = [
    ["memory", () => new InMemoryVectorStore()],
    ["sqlite", () => new SqliteVectorStore(":memory:")],
  ];
  it.each(STORES)(
    "keeps tenants sharing one collection apart on every read and write (%s)",
    async (_kind, open) => {
      const store = open();
      const embedding = new HashEmbedding();
      const acme = new KnowledgeBase({
        name: "kb",
        embedding,
        store,
        collection: "shared",
        filter: { tenant: "acme" },
      });
      const globex = new KnowledgeBase({
        name: "kb",
        embedding,
        store,
        collection: "shared",
        filter: { tenant: "globex" },
      });
      await acme.insertDocument({ source: "plan.txt", bytes: bytes("Acme secret launch plan for rockets.") });
      // Same document id, other tenant: a separate document, not a replacement.
      await globex.insertDocument({ source: "plan.txt", bytes: bytes("Globex secret plan for volcanoes.") });
      // Metadata cannot escape the scope: the forced filter wins.
      await acme.insertDocument(
        { source: "x.txt", bytes: bytes("rockets again") },
        { metadata: { tenant: "globex" } },
      );

      for (const mode of ["vector", "keyword", "hybrid"] as const) {
        const hits = await globex.search("secret launch plan rockets", { mode, topK: 10 });
        expect(
          hits.every((h) => h.chunk.metadata.tenant === "globex"),
          mode,
        ).toBe(true);
        expect(hits.map((h) => h.chunk.text).join(), mode).not.toMatch(/Acme|rockets/);
      }
      // A caller's filter cannot widen the scope.
      expect(await globex.search("rockets", { filter: { tenant: "acme" }, topK: 10 })).toEqual([]);
      expect(
        await globex.search("rockets", { filter: { tenant: { $in: ["acme", "globex"] } }, mode: "keyword" }),
      ).toEqual([]);
      expect((await globex.listDocuments()).map((d) => d.documentId)).toEqual(["plan.txt"]);
      expect((await globex.listChunks()).map((c) => c.text)).toEqual(["Globex secret plan for volcanoes."]);
      expect(await globex.listChunks({ documentId: "x.txt" })).toEqual([]);
      // Deleting through one tenant leaves the other's document of the same id alone.
      expect(await globex.deleteDocument("x.txt")).toBe(false);
      expect(await globex.deleteDocument("plan.txt")).toBe(true);
      expect((await acme.listDocuments()).map((d) => d.documentId)).toEqual(["plan.txt", "x.txt"]);
      expect((await acme.listChunks({ documentId: "x.txt" }))[0]?.metadata.tenant).toBe("acme");
      expect(() => new KnowledgeBase({ name: "k", embedding, store, filter: { year: { $gt: 1 } } })).toThrow(
        /equalities only/,
      );
      await store.close();
    },
  );

  it("re-indexing replaces a document's chunks; a failed re-index keeps the old version", async () => {
    const embedding = new HashEmbedding();
    let fail = false;
    const flaky: EmbeddingModel = {
      name: embedding.name,
      provider: embedding.provider,
      dimensions: embedding.dimensions,
      embed: async (texts, opts) => {
        if (fail) throw new AgentScopeError({ type: "invalid_request", message: "quota exceeded for good" });
        return embedding.embed(texts, opts);
      },
    };
    const kb = new KnowledgeBase({
      name: "kb",
      embedding: flaky,
      store: new InMemoryVectorStore(),
      chunker: new RecursiveChunker({ size: 8, overlap: 0 }),
      embedder: { cache: false },
    });
    await kb.insertDocument({
      source: "doc.txt",
      bytes: bytes("one two three four five six.\n\nseven eight nine ten eleven twelve."),
    });
    expect((await kb.listChunks()).length).toBeGreaterThan(1);
    await kb.insertDocument({ source: "doc.txt", bytes: bytes("short now") });
    expect((await kb.listChunks()).map((c) => c.text)).toEqual(["short now"]);
    fail = true;
    await expect(kb.insertDocument({ source: "doc.txt", bytes: bytes("never stored") })).rejects.toThrow(
      /quota/,
    );
    await expect(kb.insertDocument({ source: "doc.json", bytes: bytes("{broken") })).rejects.toThrow(
      /doc\.json/,
    );
    expect((await kb.listChunks()).map((c) => c.text)).toEqual(["short now"]);
  });

  it("reports indexing progress through read, chunk, embed, store and done", async () => {
    const kb = new KnowledgeBase({
      name: "kb",
      embedding: new HashEmbedding(),
      store: new InMemoryVectorStore(),
    });
    const stages: string[] = [];
    await kb.insertDocument(
      { sections: [{ source: "s", text: "hello world" }] },
      { onProgress: (p) => stages.push(p.stage) },
    );
    expect([...new Set(stages)]).toEqual(["read", "chunk", "embed", "store", "done"]);
    const result = await kb.insertDocument(
      { chunks: [{ text: "pre-chunked", source: "mem", page: 4 }] },
      { documentId: "pre" },
    );
    expect(result).toEqual({ documentId: "pre", chunks: 1 });
    expect((await kb.listChunks({ documentId: "pre" }))[0]).toMatchObject({ page: 4, chunkIndex: 0 });
  });

  it("refuses keyword search on a store without it", async () => {
    const store = new InMemoryVectorStore();
    Object.defineProperty(store, "capabilities", { value: { keyword: false } });
    const kb = new KnowledgeBase({ name: "kb", embedding: new HashEmbedding(), store });
    await expect(kb.search("x", { mode: "keyword" })).rejects.toThrow(/no keyword search/);
    expect(await kb.search("x")).toEqual([]); // defaults to vector
  });
});
