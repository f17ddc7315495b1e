/**
 * Part `rag`: ingest throughput per reader, search latency per store and mode, LangChain.js's
 * splitter + MemoryVectorStore on the same corpus, and retrieval quality (hit@5, MRR) on a generated
 * fact set. agentscope comes from the bench build (agentscope/rag, agentscope/testing); every
 * embedding is HashEmbedding (hashed words and trigrams), so search quality is lexical, not semantic.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { distUrl } from "../agentscope-dist.js";
import { percentile } from "../stats.js";
import { type DocumentShape, documentShape, factSet, paragraph, prng, render, renderPdf } from "./corpus.js";
import { runLangChain } from "./langchain-side.js";

type Rag = typeof import("../../../src/rag/index.js") & typeof import("../../../src/testing/index.js");

export async function importRag(): Promise<Rag> {
  const [rag, testing] = await Promise.all([
    import(distUrl("rag/index.js")),
    import(distUrl("testing/index.js")),
  ]);
  return { ...rag, ...testing } as Rag;
}

export interface IngestRow {
  reader: string;
  documents: number;
  megabytes: number;
  sections: number;
  chunks: number;
  readSectionsPerSecond: number;
  chunksPerSecond: number;
  embedChunksPerSecond: number;
}

export interface LatencyRow {
  store: string;
  chunks: number;
  mode: string;
  p50: number;
  p99: number;
  queries: number;
  /** Seconds to embed and insert the chunks. */
  loadSeconds?: number;
  error?: string;
}

export interface QualityRow {
  store: string;
  mode: string;
  questions: number;
  hitAt5: number;
  mrr: number;
}

export interface RagResult {
  ingest: IngestRow[];
  latency: LatencyRow[];
  langchain: Awaited<ReturnType<typeof runLangChain>>;
  quality: QualityRow[];
}

const seconds = (start: number) => (performance.now() - start) / 1000;

async function ingest(rag: Rag, log: (line: string) => void): Promise<IngestRow[]> {
  const shapes = Array.from({ length: 100 }, (_, i) => documentShape(i + 1, 8, 6));
  const encoder = new TextEncoder();
  const inputs: Array<[string, string, (d: DocumentShape) => Promise<Uint8Array>]> = [
    ["text", "txt", async (d) => encoder.encode(render.text(d))],
    ["markdown", "md", async (d) => encoder.encode(render.markdown(d))],
    ["html", "html", async (d) => encoder.encode(render.html(d))],
    ["csv", "csv", async (d) => encoder.encode(render.csv(d))],
    ["pdf", "pdf", renderPdf],
  ];
  const rows: IngestRow[] = [];
  for (const [reader, ext, toBytes] of inputs) {
    const docs = shapes.slice(0, ext === "pdf" ? 30 : shapes.length);
    const files = await Promise.all(
      docs.map(async (d, i) => ({ source: `doc-${i}.${ext}`, bytes: await toBytes(d) })),
    );
    let start = performance.now();
    const sections = [];
    for (const file of files) sections.push(await rag.readDocument(file));
    const readS = seconds(start);
    const chunker = new rag.RecursiveChunker();
    start = performance.now();
    const chunks = [];
    for (const [i, s] of sections.entries())
      chunks.push(...(await rag.chunkSections(s, chunker, `doc-${i}`)));
    const chunkS = seconds(start);
    const embedding = new rag.HashEmbedding();
    start = performance.now();
    for (let i = 0; i < chunks.length; i += 64)
      await embedding.embed(chunks.slice(i, i + 64).map((c) => c.text));
    const embedS = seconds(start);
    const sectionCount = sections.reduce((n, s) => n + s.length, 0);
    const row = {
      reader,
      documents: files.length,
      megabytes: files.reduce((n, f) => n + f.bytes.length, 0) / 1e6,
      sections: sectionCount,
      chunks: chunks.length,
      readSectionsPerSecond: sectionCount / readS,
      chunksPerSecond: chunks.length / chunkS,
      embedChunksPerSecond: chunks.length / embedS,
    };
    log(`  ingest ${reader}: ${row.sections} sections, ${row.chunks} chunks`);
    rows.push(row);
  }
  return rows;
}

/** `count` chunk texts of one paragraph each (~60–150 words), deterministic. */
export function chunkTexts(count: number): string[] {
  const random = prng(7);
  return Array.from({ length: count }, () => paragraph(random));
}

type StoreFactory = [
  name: string,
  make: (dir: string) => import("../../../src/rag/index.js").VectorStore,
  modes: string[],
];

function storeFactories(rag: Rag): StoreFactory[] {
  return [
    ["memory", () => new rag.InMemoryVectorStore(), ["vector", "keyword", "hybrid"]],
    [
      "sqlite",
      (dir) => new rag.SqliteVectorStore({ path: join(dir, "vectors.db") }),
      ["vector", "keyword", "hybrid"],
    ],
    ["lancedb", (dir) => new rag.LanceDbVectorStore({ uri: join(dir, "lance") }), ["vector"]],
  ];
}

async function loadBase(rag: Rag, store: import("../../../src/rag/index.js").VectorStore, texts: string[]) {
  const kb = new rag.KnowledgeBase({
    name: "bench",
    embedding: new rag.HashEmbedding(),
    store,
    embedder: { cache: false },
  });
  const perDocument = 500;
  for (let i = 0; i < texts.length; i += perDocument) {
    await kb.insertDocument(
      { chunks: texts.slice(i, i + perDocument).map((text) => ({ text, source: `doc-${i / perDocument}` })) },
      { documentId: `doc-${i / perDocument}` },
    );
  }
  return kb;
}

async function latency(
  rag: Rag,
  sizes: number[],
  queries: number,
  stores: string[] | undefined,
  log: (line: string) => void,
): Promise<LatencyRow[]> {
  const rows: LatencyRow[] = [];
  const random = prng(99);
  const questions = Array.from({ length: queries }, () => paragraph(random).split(". ")[0]!);
  for (const size of sizes) {
    const texts = chunkTexts(size);
    for (const [name, make, modes] of storeFactories(rag).filter(([n]) => !stores || stores.includes(n))) {
      const dir = mkdtempSync(join(tmpdir(), "agentscope-bench-rag-"));
      const store = make(dir);
      try {
        const start = performance.now();
        const kb = await loadBase(rag, store, texts);
        const loadSeconds = seconds(start);
        log(`  ${name} ${size} chunks loaded in ${loadSeconds.toFixed(1)} s`);
        for (const mode of modes) {
          for (const q of questions.slice(0, 5)) await kb.search(q, { topK: 5, mode: mode as "vector" });
          const times: number[] = [];
          for (const q of questions) {
            const t = performance.now();
            await kb.search(q, { topK: 5, mode: mode as "vector" });
            times.push(performance.now() - t);
          }
          times.sort((a, b) => a - b);
          rows.push({
            store: name,
            chunks: size,
            mode,
            p50: percentile(times, 50),
            p99: percentile(times, 99),
            queries,
            loadSeconds,
          });
          log(`  ${name} ${size} ${mode}: p50 ${percentile(times, 50).toFixed(2)} ms`);
        }
      } catch (error) {
        rows.push({
          store: name,
          chunks: size,
          mode: "-",
          p50: Number.NaN,
          p99: Number.NaN,
          queries,
          error: (error as Error).message.split("\n")[0]!,
        });
      } finally {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  return rows;
}

async function quality(rag: Rag): Promise<QualityRow[]> {
  const { facts, questions } = factSet(200);
  const rows: QualityRow[] = [];
  for (const [name, make, modes] of storeFactories(rag).filter(([n]) => n !== "lancedb")) {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-bench-rag-"));
    const store = make(dir);
    try {
      const kb = new rag.KnowledgeBase({ name: "facts", embedding: new rag.HashEmbedding(), store });
      for (const fact of facts)
        await kb.insertDocument({ chunks: [{ text: fact.text, source: fact.id }] }, { documentId: fact.id });
      for (const mode of modes.filter((m) => m !== "keyword").concat("keyword")) {
        let hits = 0;
        let reciprocal = 0;
        for (const { question, answer } of questions) {
          const found = await kb.search(question, { topK: 5, mode: mode as "vector" });
          const rank = found.findIndex((hit) => hit.chunk.documentId === answer);
          if (rank >= 0) {
            hits++;
            reciprocal += 1 / (rank + 1);
          }
        }
        rows.push({
          store: name,
          mode,
          questions: questions.length,
          hitAt5: hits / questions.length,
          mrr: reciprocal / questions.length,
        });
      }
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rows;
}

export async function runRag(options: {
  sizes: number[];
  queries: number;
  /** Only these stores in the latency table (memory, sqlite, lancedb); default all. */
  stores?: string[];
  log: (line: string) => void;
}): Promise<RagResult> {
  const rag = await importRag();
  options.log(" ingest per reader");
  const ingestRows = await ingest(rag, options.log);
  options.log(" search latency");
  const latencyRows = await latency(rag, options.sizes, options.queries, options.stores, options.log);
  options.log(" LangChain.js side by side");
  const langchain = await runLangChain(rag, { chunks: options.sizes[0]!, queries: options.queries });
  options.log(" retrieval quality");
  return { ingest: ingestRows, latency: latencyRows, langchain, quality: await quality(rag) };
}
