import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KnowledgeService } from "../../src/app/server/http/knowledge-service.js";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { InMemoryVectorStore } from "../../src/rag/index.js";
import { HashEmbedding } from "../../src/testing/index.js";
import { conversationModel } from "./fixtures/agents.js";
import { json } from "./helpers.js";

/**
 * Every route of the whole service that takes a body (POST, PUT, PATCH), enumerated from the app
 * itself, so a route added later is covered without touching this test. A body sent as anything but
 * JSON is refused with 415 and a JSON error. The one upload route wants multipart instead, and also
 * refuses these types with 415.
 */

const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);
const MULTIPART_ROUTES = new Set(["POST /v1/knowledge-bases/:name/documents"]);

let server: RunningServer;
let sessionId: string;

beforeAll(async () => {
  server = await startServer({
    config: { agents: [{ name: "main", model: conversationModel() }], store: "memory:" },
    port: 0,
    tokensEnv: "",
    knowledge: new KnowledgeService({ embedding: new HashEmbedding(), store: new InMemoryVectorStore() }),
  });
  const request = (path: string, body: unknown) =>
    server.app.request(`http://127.0.0.1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  sessionId = (await json(request("/v1/sessions", {}))).sessionId;
  expect((await request("/v1/knowledge-bases", { name: "kb" })).status).toBe(201);
});
afterAll(() => server.close());

/** The app's body-taking routes as `METHOD /path` with their parameters filled in. */
function bodyRoutes(): { route: string; method: string; path: string }[] {
  const seen = new Set<string>();
  const routes: { route: string; method: string; path: string }[] = [];
  for (const { method, path } of server.app.routes) {
    const route = `${method} ${path}`;
    if (!BODY_METHODS.has(method) || seen.has(route)) continue;
    seen.add(route);
    const filled = path
      .replace(":id", sessionId)
      .replace(":name", "kb")
      .replace(":agent", "main")
      .replace(/:[\w]+/g, "x");
    routes.push({ route, method, path: filled });
  }
  return routes;
}

describe("JSON routes refuse other content types with 415", () => {
  it("finds the routes to check (sessions, replies, knowledge, AG-UI, A2A)", () => {
    const routes = bodyRoutes().map((r) => r.route);
    for (const expected of [
      "POST /v1/sessions",
      "PATCH /v1/sessions/:id",
      "POST /v1/sessions/:id/replies",
      "POST /v1/sessions/:id/confirm",
      "POST /v1/sessions/:id/external-results",
      "POST /v1/sessions/:id/interrupt",
      "POST /v1/knowledge-bases",
      "POST /v1/knowledge-bases/:name/search",
      "POST /v1/agui",
      "POST /v1/a2a/:agent",
    ])
      expect(routes).toContain(expected);
  });

  const hostile: [string, Record<string, string>][] = [
    ["text/plain", { "content-type": "text/plain" }],
    ["text/plain with a charset", { "content-type": "text/plain;charset=UTF-8" }],
    ["a form", { "content-type": "application/x-www-form-urlencoded" }],
    ["no Content-Type at all", {}],
    ["JSON's name inside another type", { "content-type": "text/plain; x=application/json" }],
  ];
  for (const [label, headers] of hostile) {
    it(`a body sent as ${label} is a 415 on every body-taking route`, async () => {
      for (const { route, method, path } of bodyRoutes()) {
        // A Blob body carries no type of its own, so the request has exactly the headers given.
        const response = await server.app.request(`http://127.0.0.1${path}`, {
          method,
          headers,
          body: new Blob([JSON.stringify({ name: "x", query: "x", text: "hi", title: "t" })]),
        });
        expect(response.status, `${route} (${label})`).toBe(415);
        const body = await json(response);
        expect(body.error.type, route).toBe("unsupported_media_type");
        expect(body.error.message, route).toMatch(
          MULTIPART_ROUTES.has(route) ? /multipart/ : /application\/json/,
        );
      }
    });
  }

  it("a refused body changes nothing (no knowledge base created from text/plain)", async () => {
    await server.app.request("http://127.0.0.1/v1/knowledge-bases", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ name: "sneaky" }),
    });
    const listed = await json(server.app.request("http://127.0.0.1/v1/knowledge-bases"));
    expect(listed.knowledgeBases.map((b: { name: string }) => b.name)).toEqual(["kb"]);
  });

  it("the OpenAPI document lists 415 on every operation that takes a body", async () => {
    const document = await json(server.app.request("http://127.0.0.1/v1/openapi.json"));
    const withBody: string[] = [];
    for (const [path, operations] of Object.entries(
      document.paths as Record<
        string,
        Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>
      >,
    ))
      for (const [method, operation] of Object.entries(operations))
        if (operation.requestBody) {
          withBody.push(`${method} ${path}`);
          expect(operation.responses["415"], `${method} ${path}`).toBeDefined();
        }
    expect(withBody.length).toBeGreaterThanOrEqual(6);
  });

  it("application/json (and +json, with parameters) is still accepted", async () => {
    for (const type of ["application/json", "application/json; charset=utf-8", "application/vnd.api+json"]) {
      const response = await server.app.request("http://127.0.0.1/v1/knowledge-bases/kb/search", {
        method: "POST",
        headers: { "content-type": type },
        body: JSON.stringify({ query: "anything" }),
      });
      expect(response.status, type).toBe(200);
    }
  });
});
