/** A knowledge base of the user's (`GET /v1/knowledge-bases`). */
export interface KnowledgeBaseInfo {
  name: string;
  description: string;
  /** ISO 8601. */
  createdAt: string;
}

/** Where an indexing job stands: `queued` → `indexing` → `done` or `failed`. */
export type IndexJobStatus = "queued" | "indexing" | "done" | "failed";

/** One uploaded document being indexed (`GET /v1/knowledge-bases/:name/jobs/:id`). */
export interface IndexJob {
  id: string;
  knowledgeBase: string;
  documentId: string;
  status: IndexJobStatus;
  progress?: { stage: "read" | "chunk" | "embed" | "store" | "done"; done: number; total: number };
  /** Chunks stored, once done. */
  chunks?: number;
  /** Why it failed. */
  error?: string;
}

/** A document kept in a base (`GET /v1/knowledge-bases/:name/documents`). */
export interface KnowledgeDocument {
  documentId: string;
  source: string;
  chunkCount: number;
}

/** One passage a search found; `citation` names its source (file, page/sheet/slide, headings). */
export interface KnowledgeHit {
  documentId: string;
  chunkIndex: number;
  text: string;
  citation: string;
  score: number;
}

export interface KnowledgeSearchOptions {
  /** Passages to return (1 to 50; the service's default when absent). */
  topK?: number;
  scoreThreshold?: number;
  mode?: "vector" | "keyword" | "hybrid";
}
