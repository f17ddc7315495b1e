/** The RAG section of RESULTS.md. */
import type { RagResult } from "./rag-bench.js";

export type { RagResult } from "./rag-bench.js";

const n0 = (n: number) => Math.round(n).toLocaleString("en");
const ms = (n: number) => (Number.isNaN(n) ? "–" : n >= 100 ? n.toFixed(0) : n.toFixed(2));

export function renderRag(rag: RagResult): string[] {
  return [
    "## RAG (HashEmbedding, 256 dimensions; generated corpus)",
    "",
    "Ingest per reader (generated documents: 8 sections of 6 paragraphs each; PDF one page per section). Read, chunk (default `RecursiveChunker`, 512 approximate tokens, overlap 50) and embed (`HashEmbedding`, batches of 64) timed separately, in process.",
    "",
    "| reader | documents | MB | sections | read sections/s | chunks | chunk chunks/s | embed chunks/s |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rag.ingest.map(
      (r) =>
        `| ${r.reader} | ${r.documents} | ${r.megabytes.toFixed(1)} | ${n0(r.sections)} | ${n0(r.readSectionsPerSecond)} | ${n0(r.chunks)} | ${n0(r.chunksPerSecond)} | ${n0(r.embedChunksPerSecond)} |`,
    ),
    "",
    `Search latency through \`KnowledgeBase.search\` (query embedding included, topK 5, one query at a time, ${rag.latency[0]?.queries ?? 0} queries after 5 warm-up); chunks of one paragraph each, loaded 500 per document.`,
    "",
    "| store | chunks | load s | mode | p50 ms | p99 ms |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rag.latency.map((r) =>
      r.error
        ? `| ${r.store} | ${n0(r.chunks)} | | not measured: ${r.error} | | |`
        : `| ${r.store} | ${n0(r.chunks)} | ${r.loadSeconds?.toFixed(1) ?? ""} | ${r.mode} | ${ms(r.p50)} | ${ms(r.p99)} |`,
    ),
    "",
    "Side by side with LangChain.js (`RecursiveCharacterTextSplitter` 2,048 characters / overlap 200 vs `RecursiveChunker`, on the 100 text documents; `MemoryVectorStore` vs `InMemoryVectorStore` vector search on the same chunks, both embedding with the same hash).",
    "",
    "| framework | split chunks | split chunks/s | load s | search p50 ms | search p99 ms |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rag.langchain.map(
      (r) =>
        `| ${r.framework} | ${n0(r.splitChunks)} | ${n0(r.splitChunksPerSecond)} | ${r.loadSeconds.toFixed(2)} | ${ms(r.p50)} | ${ms(r.p99)} |`,
    ),
    "",
    "Retrieval quality: 200 generated one-paragraph documents about invented valves (distinct names, shared template words), one question per document naming the valve and asking its city, temperature, team or year. HashEmbedding matches words and trigrams, so vector search here is lexical too: this measures the fusion and the stores, not semantic retrieval.",
    "",
    "| store | mode | questions | hit@5 | MRR |",
    "| --- | --- | --- | --- | --- |",
    ...rag.quality.map(
      (r) => `| ${r.store} | ${r.mode} | ${r.questions} | ${r.hitAt5.toFixed(3)} | ${r.mrr.toFixed(3)} |`,
    ),
    "",
  ];
}
