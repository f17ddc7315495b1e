import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { ServiceVariables } from "../../src/app/server/http/auth.js";
import { knowledgeRoutes } from "../../src/app/server/http/knowledge-routes.js";
import { KnowledgeService } from "../../src/app/server/http/knowledge-service.js";
import { toHttpError } from "../../src/app/server/http-error.js";
import { textOf, userMsg } from "../../src/message/index.js";
import { InMemoryVectorStore, ragMiddleware, SEARCH_KNOWLEDGE_TOOL } from "../../src/rag/index.js";
import { HashEmbedding, ScriptedModel } from "../../src/testing/index.js";

/** The routes behind a stand-in for the service's auth: the `x-user` header is the user. */
function serve(service: KnowledgeService) {
  const app = new Hono<{ Variables: ServiceVariables }>();
  app.onError((error, c) => {
    const http = toHttpError(error);
    return c.json(http.body, http.status);
  });
  app.use("*", async (c, next) => {
    c.set("user", c.req.header("x-user") ?? "alice");
    await next();
  });
  app.route("/", knowledgeRoutes(service));
  return (path: string, init: RequestInit & { user?: string } = {}) =>
    app.request(path, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), "x-user": init.user ?? "alice" },
    });
}

const json = (body: unknown) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { "content-type": "application/json" },
});

function upload(files: Record<string, string>): RequestInit {
  const form = new FormData();
  for (const [name, text] of Object.entries(files))
    form.append("file", new File([text], name, { type: "text/markdown" }));
  return { method: "POST", body: form };
}

describe("knowledge base routes", () => {
  it("upload → background index → search → an agent answers from it, per user", async () => {
    const service = new KnowledgeService({
      embedding: new HashEmbedding(),
      store: new InMemoryVectorStore(),
    });
    const call = serve(service);
    expect(
      (await call("/v1/knowledge-bases", json({ name: "manuals", description: "reactor manuals" }))).status,
    ).toBe(201);
    expect((await call("/v1/knowledge-bases", json({ name: "manuals" }))).status).toBe(409);

    const accepted = await call(
      "/v1/knowledge-bases/manuals/documents",
      upload({
        "reactor.md": "# Reactor\nThe aurora reactor runs at forty kelvin.",
        "garden.md": "# Garden\nTomatoes need sun.",
      }),
    );
    expect(accepted.status).toBe(202);
    const { jobs } = (await accepted.json()) as { jobs: { id: string; status: string }[] };
    expect(jobs).toHaveLength(2);

    // Progress events until the job ends.
    const events = await (await call(`/v1/knowledge-bases/manuals/jobs/${jobs[0]!.id}/events`)).text();
    const statuses = [...events.matchAll(/"status":"(\w+)"/g)].map((m) => m[1]);
    expect(statuses.at(-1)).toBe("done");
    expect(events).toContain('"stage":"done"');
    await service.settled("alice", jobs[1]!.id);
    expect(await (await call(`/v1/knowledge-bases/manuals/jobs/${jobs[1]!.id}`)).json()).toMatchObject({
      status: "done",
      chunks: 1,
    });

    const listed = (await (await call("/v1/knowledge-bases/manuals/documents")).json()) as {
      documents: { documentId: string }[];
    };
    expect(listed.documents.map((d) => d.documentId)).toEqual(["garden.md", "reactor.md"]);

    const search = await call(
      "/v1/knowledge-bases/manuals/search",
      json({ query: "aurora reactor kelvin", topK: 1 }),
    );
    expect(await search.json()).toMatchObject({
      hits: [
        {
          documentId: "reactor.md",
          citation: "reactor.md > Reactor",
          text: expect.stringContaining("forty kelvin"),
        },
      ],
    });

    // Another user sees none of it.
    expect(
      (await call("/v1/knowledge-bases/manuals/search", { ...json({ query: "reactor" }), user: "bob" }))
        .status,
    ).toBe(404);
    expect(await (await call("/v1/knowledge-bases", { user: "bob" })).json()).toEqual({ knowledgeBases: [] });
    expect((await call(`/v1/knowledge-bases/manuals/jobs/${jobs[0]!.id}`, { user: "bob" })).status).toBe(404);
    await call("/v1/knowledge-bases", { ...json({ name: "manuals" }), user: "bob" });
    const bobs = await call("/v1/knowledge-bases/manuals/search", {
      ...json({ query: "aurora reactor", mode: "keyword" }),
      user: "bob",
    });
    expect(await bobs.json()).toEqual({ hits: [] });

    // The agent answers from the user's base, citing the source.
    const rag = ragMiddleware({ knowledgeBases: [await service.base("alice", "manuals")], topK: 1 });
    const model = new ScriptedModel([
      { toolCalls: [{ name: SEARCH_KNOWLEDGE_TOOL, input: { query: "aurora reactor temperature" } }] },
      { text: "Forty kelvin, per reactor.md [1]." },
    ]);
    const agent = new Agent({ name: "helper", model, toolkit: rag.tools, middlewares: [rag] });
    for await (const _ of agent.replyStream(userMsg("How cold is the reactor?"))) {
      // drain
    }
    expect(JSON.stringify(model.calls[1]!.messages)).toContain("[1] (reactor.md > Reactor)");
    expect(textOf(agent.state.context.at(-1)!)).toContain("reactor.md [1]");

    expect((await call("/v1/knowledge-bases/manuals/documents/garden.md", { method: "DELETE" })).status).toBe(
      204,
    );
    expect((await call("/v1/knowledge-bases/manuals/documents/garden.md", { method: "DELETE" })).status).toBe(
      404,
    );
  });

  it("refuses oversized and unreadable uploads, reporting the failure on the job", async () => {
    const service = new KnowledgeService({
      embedding: new HashEmbedding(),
      store: new InMemoryVectorStore(),
      maxUploadBytes: 64,
    });
    const call = serve(service);
    await call("/v1/knowledge-bases", json({ name: "kb" }));
    const big = await call("/v1/knowledge-bases/kb/documents", upload({ "big.md": "x".repeat(100) }));
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({ error: { type: "payload_too_large" } });
    const form = new FormData();
    form.append("file", new File(["{not json"], "bad.json", { type: "application/json" }));
    const { jobs } = (await (
      await call("/v1/knowledge-bases/kb/documents", { method: "POST", body: form })
    ).json()) as {
      jobs: { id: string }[];
    };
    const job = await service.settled("alice", jobs[0]!.id);
    expect(job).toMatchObject({ status: "failed", error: expect.stringContaining("cannot read bad.json") });
    expect(await (await call("/v1/knowledge-bases/kb/documents")).json()).toEqual({ documents: [] });
    expect((await call("/v1/knowledge-bases/kb/documents", json({}))).status).toBe(415);
    expect((await call("/v1/knowledge-bases", json({ name: "bad name!" }))).status).toBe(400);
  });
});
