/**
 * LangChain.js on the same corpus: RecursiveCharacterTextSplitter (2,048 characters, overlap 200 —
 * agentscope's RecursiveChunker default of 512 approximate tokens at 4 bytes each, overlap 50) against
 * RecursiveChunker, and MemoryVectorStore against InMemoryVectorStore (vector mode), both embedding
 * with the same hash function, so what differs is framework overhead.
 */

import { MemoryVectorStore } from "@langchain/classic/vectorstores/memory";
import { Document } from "@langchain/core/documents";
import { Embeddings } from "@langchain/core/embeddings";
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";
import { percentile } from "../stats.js";
import { documentShape, paragraph, prng, render } from "./corpus.js";
import { chunkTexts, type importRag } from "./rag-bench.js";

type Rag = Awaited<ReturnType<typeof importRag>>;

/** LangChain's Embeddings interface over agentscope's HashEmbedding vectors. */
class HashEmbeddings extends Embeddings {
  constructor(private readonly hash: { vectorOf(text: string): number[] }) {
    super({});
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.hash.vectorOf(text));
  }
  async embedQuery(text: string): Promise<number[]> {
    return this.hash.vectorOf(text);
  }
}

export interface SideBySide {
  framework: string;
  splitChunks: number;
  splitChunksPerSecond: number;
  loadSeconds: number;
  p50: number;
  p99: number;
}

async function timeQueries(queries: string[], search: (q: string) => Promise<unknown>) {
  for (const q of queries.slice(0, 5)) await search(q);
  const times: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await search(q);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

export async function runLangChain(
  rag: Rag,
  options: { chunks: number; queries: number },
): Promise<SideBySide[]> {
  const texts = Array.from({ length: 100 }, (_, i) => render.text(documentShape(i + 1, 8, 6)));
  const random = prng(99);
  const queries = Array.from({ length: options.queries }, () => paragraph(random).split(". ")[0]!);
  const corpus = chunkTexts(options.chunks);

  // agentscope
  const chunker = new rag.RecursiveChunker();
  let start = performance.now();
  let asChunks = 0;
  for (const [i, text] of texts.entries())
    asChunks += (await rag.chunkSections([{ text, source: `doc-${i}.txt` }], chunker, `doc-${i}`)).length;
  const asSplit = (performance.now() - start) / 1000;
  const store = new rag.InMemoryVectorStore();
  const kb = new rag.KnowledgeBase({
    name: "side",
    embedding: new rag.HashEmbedding(),
    store,
    embedder: { cache: false },
  });
  start = performance.now();
  await kb.insertDocument(
    { chunks: corpus.map((text) => ({ text, source: "corpus" })) },
    { documentId: "corpus" },
  );
  const asLoad = (performance.now() - start) / 1000;
  const asSearch = await timeQueries(queries, (q) => kb.search(q, { topK: 5, mode: "vector" }));
  await store.close();

  // LangChain.js
  const splitter = new RecursiveCharacterTextSplitter({ chunkSize: 2048, chunkOverlap: 200 });
  start = performance.now();
  let lcChunks = 0;
  for (const text of texts) lcChunks += (await splitter.splitText(text)).length;
  const lcSplit = (performance.now() - start) / 1000;
  const vectors = new MemoryVectorStore(new HashEmbeddings(new rag.HashEmbedding()));
  start = performance.now();
  await vectors.addDocuments(
    corpus.map((pageContent) => new Document({ pageContent, metadata: { source: "corpus" } })),
  );
  const lcLoad = (performance.now() - start) / 1000;
  const lcSearch = await timeQueries(queries, (q) => vectors.similaritySearchWithScore(q, 5));

  return [
    {
      framework: "agentscope",
      splitChunks: asChunks,
      splitChunksPerSecond: asChunks / asSplit,
      loadSeconds: asLoad,
      ...asSearch,
    },
    {
      framework: "LangChain.js",
      splitChunks: lcChunks,
      splitChunksPerSecond: lcChunks / lcSplit,
      loadSeconds: lcLoad,
      ...lcSearch,
    },
  ];
}
