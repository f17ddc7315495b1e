import type { IndexJob, KnowledgeBaseInfo, KnowledgeDocument, KnowledgeHit } from "../knowledge-types.js";
import { CreateKnowledgeBaseBody, KnowledgeSearchBody } from "../request-schemas.js";
import { answer, jsonBody, type Route } from "../route.js";

/** Knowledge bases: create, upload, index, search (docs/knowledge.md). */
export const KNOWLEDGE_ROUTES = {
  createKnowledgeBase: {
    method: "POST",
    path: "/v1/knowledge-bases",
    summary: "Create a knowledge base",
    auth: "bearer",
    body: jsonBody(CreateKnowledgeBaseBody, "knowledge base", true),
    answer: answer<KnowledgeBaseInfo>(201, "The knowledge base"),
  },
  listKnowledgeBases: {
    method: "GET",
    path: "/v1/knowledge-bases",
    summary: "Your knowledge bases",
    auth: "bearer",
    answer: answer<{ knowledgeBases: KnowledgeBaseInfo[] }>(200, "`{ knowledgeBases }`"),
  },
  deleteKnowledgeBase: {
    method: "DELETE",
    path: "/v1/knowledge-bases/{name}",
    summary: "Delete a knowledge base and its documents",
    auth: "bearer",
    answer: answer<undefined>(204, "deleted"),
  },
  uploadDocuments: {
    method: "POST",
    path: "/v1/knowledge-bases/{name}/documents",
    summary: "Upload documents to index in the background",
    auth: "bearer",
    body: { kind: "multipart", description: "one or more `file` fields" },
    answer: answer<{ jobs: IndexJob[] }>(202, "`{ jobs }`: one indexing job per file"),
  },
  indexJob: {
    method: "GET",
    path: "/v1/knowledge-bases/{name}/jobs/{id}",
    summary: "Where an indexing job stands",
    auth: "bearer",
    answer: answer<IndexJob>(200, "The job: `queued | indexing | done | failed`, progress"),
  },
  indexJobEvents: {
    method: "GET",
    path: "/v1/knowledge-bases/{name}/jobs/{id}/events",
    summary: "An indexing job's progress (SSE) until it ends",
    auth: "bearer",
    answer: answer<never>(200, "SSE `progress` events, each the job", "sse"),
  },
  listDocuments: {
    method: "GET",
    path: "/v1/knowledge-bases/{name}/documents",
    summary: "The documents of a knowledge base",
    auth: "bearer",
    answer: answer<{ documents: KnowledgeDocument[] }>(200, "`{ documents }`"),
  },
  deleteDocument: {
    method: "DELETE",
    path: "/v1/knowledge-bases/{name}/documents/{documentId}",
    summary: "Delete one document",
    auth: "bearer",
    answer: answer<undefined>(204, "deleted"),
  },
  searchKnowledge: {
    method: "POST",
    path: "/v1/knowledge-bases/{name}/search",
    summary: "Search a knowledge base",
    auth: "bearer",
    body: jsonBody(KnowledgeSearchBody, "search request", true),
    answer: answer<{ hits: KnowledgeHit[] }>(
      200,
      "`{ hits: [{ documentId, chunkIndex, text, citation, score }] }`",
    ),
  },
} as const satisfies Record<string, Route>;
