import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { KnowledgeService } from "../../src/app/server/http/knowledge-service.js";
import { honoPath } from "../../src/app/server/http/routes-from.js";
import { mountedRoutes } from "../../src/app/server/mounted-routes.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { WorkspaceManager } from "../../src/app/server/workspace-manager.js";
import { ROUTE_NAMES, type Route, SERVICE_ROUTES } from "../../src/protocol/index.js";
import { InMemoryVectorStore } from "../../src/rag/index.js";
import { HashEmbedding } from "../../src/testing/index.js";
import { conversationModel } from "../app/fixtures/agents.js";

let dir: string;
let runtime: ServiceRuntime;
let app: ReturnType<typeof createApp>;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "route-table-"));
  runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [{ name: "main", model: conversationModel() }],
  });
  // Every front-end mounted, as `agentscope serve` does with memory, workspaces and knowledge bases.
  const mounts = mountedRoutes(runtime, {
    memory: { flush: async () => {} },
    workspaces: new WorkspaceManager({ dataDir: dir }),
    knowledge: new KnowledgeService({ embedding: new HashEmbedding(), store: new InMemoryVectorStore() }),
  });
  app = createApp(runtime, { mounts, version: "9.9.9" });
});
afterAll(async () => {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const routes = (): Array<[string, Route]> => ROUTE_NAMES.map((name) => [name, SERVICE_ROUTES[name]]);
const operationsOf = (doc: { paths: Record<string, Record<string, unknown>> }) =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
  );

describe("the route table drives the routes and the OpenAPI document", () => {
  it("the app registers exactly the table's routes under /v1, each once", () => {
    const registered = app.routes
      .filter((route) => route.path.startsWith("/v1/") && route.method !== "ALL")
      .map((route) => `${route.method} ${route.path}`);
    const table = routes().map(([, route]) => `${route.method} ${honoPath(route.path)}`);
    expect([...registered].sort()).toEqual([...table].sort());
  });

  it("every route of the table answers (no 'no route' 404 for any of them)", async () => {
    for (const [name, route] of routes()) {
      const path = route.path.replace(/\{\w+\}/g, "missing");
      const init: RequestInit = { method: route.method };
      if (route.body?.kind === "json" || route.body?.kind === "foreign")
        init.headers = { "content-type": "application/json" };
      const response = await app.request(path, init);
      const text = await response.text();
      expect(text, name).not.toContain("no route");
    }
  });

  it("/v1/openapi.json is generated from the table: one operation per route, named after it", async () => {
    const doc = await (await app.request("/v1/openapi.json")).json();
    expect(doc.info.version).toBe("9.9.9");
    expect(operationsOf(doc).sort()).toEqual(
      routes()
        .map(([, r]) => `${r.method} ${r.path}`)
        .sort(),
    );
    for (const [name, route] of routes())
      expect(doc.paths[route.path][route.method.toLowerCase()].operationId).toBe(name);
    // The open routes are open in the document too.
    expect(doc.paths["/v1/health"].get.security).toEqual([]);
    expect(doc.paths["/v1/sessions"].post.security).toBeUndefined();
  });

  it("the generated document is valid OpenAPI 3.1", async () => {
    const doc = await (await app.request("/v1/openapi.json")).json();
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("a route's body schema is its request body in the document, and JSON bodies list 415", async () => {
    const doc = await (await app.request("/v1/openapi.json")).json();
    const confirm = doc.paths["/v1/sessions/{id}/confirm"].post;
    expect(Object.keys(confirm.requestBody.content["application/json"].schema.properties).sort()).toEqual([
      "answers",
      "confirmResults",
      "replyId",
    ]);
    expect(confirm.responses["415"]).toBeDefined();
    expect(confirm.responses["202"]).toBeDefined();
    expect(confirm.responses["200"].content["text/event-stream"]).toBeDefined();
    expect(doc.paths["/v1/sessions/{id}/events"].get.responses["429"]).toBeDefined();
  });
});
