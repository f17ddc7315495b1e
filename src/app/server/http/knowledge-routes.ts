import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { citationOf, RagError } from "../../../rag/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceVariables } from "./auth.js";
import type { IndexJob, KnowledgeService } from "./knowledge-service.js";
import { routesFrom } from "./routes-from.js";

/**
 * Each user's knowledge bases (mounted at `/`, under the /v1 auth; every call is scoped to the
 * authenticated user):
 * - `POST /v1/knowledge-bases` `{ name, description? }` → 201 the base; `GET` → `{ knowledgeBases }`.
 * - `DELETE /v1/knowledge-bases/:name` → 204 (its documents deleted).
 * - `POST /v1/knowledge-bases/:name/documents` (multipart, one or more `file` fields) → 202
 *   `{ jobs }`: each file is indexed in the background; 413 for a file over the size limit.
 * - `GET /v1/knowledge-bases/:name/jobs/:id` → the job (`queued|indexing|done|failed`, progress);
 *   `.../jobs/:id/events` → SSE `progress` events until the job ends.
 * - `GET .../documents` → `{ documents }`; `DELETE .../documents/:documentId` → 204 or 404.
 * - `POST .../search` `{ query, topK?, scoreThreshold?, mode? }` → `{ hits: [{ text, citation, score, ... }] }`.
 */
export function knowledgeRoutes(service: KnowledgeService): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    createKnowledgeBase: async (c, request) => {
      const body = await request.body();
      return c.json(await service.create(c.var.user, body.name, body.description), 201);
    },
    listKnowledgeBases: async (c) => c.json({ knowledgeBases: await service.list(c.var.user) }),
    deleteKnowledgeBase: async (c, request) => {
      await service.remove(c.var.user, request.param("name"));
      return c.body(null, 204);
    },

    uploadDocuments: async (c, request) => {
      const name = request.param("name");
      await service.base(c.var.user, name); // 404 before reading the upload
      if (!(c.req.header("content-type") ?? "").startsWith("multipart/form-data")) {
        throw new RequestError(
          "unsupported_media_type",
          "upload documents as multipart/form-data `file` fields",
        );
      }
      const form = await c.req.parseBody({ all: true });
      const files = [form.file].flat().filter((f): f is File => f instanceof File);
      if (files.length === 0) throw new RequestError("invalid_request", "file: attach at least one document");
      for (const file of files) {
        if (file.size > service.maxUploadBytes) {
          throw new RequestError(
            "payload_too_large",
            `${file.name} is larger than ${service.maxUploadBytes} bytes`,
          );
        }
      }
      const jobs: IndexJob[] = [];
      for (const file of files) {
        const bytes = new Uint8Array(await file.arrayBuffer());
        jobs.push(await service.startIndexing(c.var.user, name, { name: file.name, type: file.type, bytes }));
      }
      return c.json({ jobs }, 202);
    },

    indexJob: (c, request) => c.json(service.job(c.var.user, request.param("id"))),
    indexJobEvents: (c, request) => {
      const user = c.var.user;
      const id = request.param("id");
      const first = service.job(user, id);
      return streamSSE(c, async (stream) => {
        const ended = (job: IndexJob) => job.status === "done" || job.status === "failed";
        const queue: IndexJob[] = [first];
        let wake: (() => void) | undefined;
        const stop = service.follow(user, id, (job) => {
          queue.push(job);
          wake?.();
        });
        try {
          while (true) {
            const job = queue.shift();
            if (!job) {
              await new Promise<void>((resolve) => {
                wake = resolve;
              });
              continue;
            }
            await stream.writeSSE({ event: "progress", data: JSON.stringify(job) });
            if (ended(job)) break;
          }
        } finally {
          stop();
        }
      });
    },

    listDocuments: async (c, request) => {
      const documents = await (await service.base(c.var.user, request.param("name"))).listDocuments();
      return c.json({ documents: documents.map(({ metadata: _m, ...doc }) => doc) });
    },
    deleteDocument: async (c, request) => {
      const documentId = request.param("documentId");
      const deleted = await (await service.base(c.var.user, request.param("name"))).deleteDocument(
        documentId,
      );
      if (!deleted) throw new RequestError("not_found", `no document ${documentId}`);
      return c.body(null, 204);
    },

    searchKnowledge: async (c, request) => {
      const body = await request.body();
      const base = await service.base(c.var.user, request.param("name"));
      const hits = await base
        .search(body.query, {
          ...(body.topK !== undefined ? { topK: body.topK } : {}),
          ...(body.scoreThreshold !== undefined ? { scoreThreshold: body.scoreThreshold } : {}),
          ...(body.mode ? { mode: body.mode } : {}),
        })
        .catch((error: unknown) => {
          // A search the store cannot run (keyword search on a vector-only store) is the caller's to fix.
          if (error instanceof RagError && error.info.type === "invalid_request") {
            throw new RequestError("invalid_request", error.message);
          }
          throw error;
        });
      return c.json({
        hits: hits.map((hit) => ({
          documentId: hit.chunk.documentId,
          chunkIndex: hit.chunk.chunkIndex,
          text: hit.chunk.text,
          citation: citationOf(hit.chunk),
          score: hit.score,
        })),
      });
    },
  });
}
