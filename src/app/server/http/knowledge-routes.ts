import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import { citationOf, RagError } from "../../../rag/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceVariables } from "./auth.js";
import type { IndexJob, KnowledgeService } from "./knowledge-service.js";
import { readBody } from "./read-body.js";

const CreateBody = z.object({ name: z.string(), description: z.string().max(2000).optional() });
const SearchBody = z.object({
  query: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(10)]),
  topK: z.number().int().min(1).max(50).optional(),
  scoreThreshold: z.number().optional(),
  mode: z.enum(["vector", "keyword", "hybrid"]).optional(),
});

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
  const app = new Hono<{ Variables: ServiceVariables }>();
  const prefix = "/v1/knowledge-bases";

  app.post(prefix, async (c) => {
    const body = await readBody(c, CreateBody, "knowledge base");
    return c.json(await service.create(c.var.user, body.name, body.description), 201);
  });
  app.get(prefix, async (c) => c.json({ knowledgeBases: await service.list(c.var.user) }));
  app.delete(`${prefix}/:name`, async (c) => {
    await service.remove(c.var.user, c.req.param("name"));
    return c.body(null, 204);
  });

  app.post(`${prefix}/:name/documents`, async (c) => {
    const name = c.req.param("name");
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
  });

  app.get(`${prefix}/:name/jobs/:id`, (c) => c.json(service.job(c.var.user, c.req.param("id"))));
  app.get(`${prefix}/:name/jobs/:id/events`, (c) => {
    const user = c.var.user;
    const id = c.req.param("id");
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
  });

  app.get(`${prefix}/:name/documents`, async (c) => {
    const documents = await (await service.base(c.var.user, c.req.param("name"))).listDocuments();
    return c.json({ documents: documents.map(({ metadata: _m, ...doc }) => doc) });
  });
  app.delete(`${prefix}/:name/documents/:documentId`, async (c) => {
    const documentId = c.req.param("documentId");
    const deleted = await (await service.base(c.var.user, c.req.param("name"))).deleteDocument(documentId);
    if (!deleted) throw new RequestError("not_found", `no document ${documentId}`);
    return c.body(null, 204);
  });

  app.post(`${prefix}/:name/search`, async (c) => {
    const body = await readBody(c, SearchBody, "search request");
    const base = await service.base(c.var.user, c.req.param("name"));
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
  });
  return app;
}
