import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { KnowledgeService } from "../../src/app/server/http/knowledge-service.js";
import { mountedRoutes } from "../../src/app/server/mounted-routes.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { WorkspaceManager } from "../../src/app/server/workspace-manager.js";
import {
  AgentScopeClient,
  type ConfirmRequest,
  type CreateSessionOptions,
  type ExternalResultsRequest,
  type KnowledgeBases,
  ServiceError,
} from "../../src/client/index.js";
import {
  type CallableRouteAddress,
  ROUTE_NAMES,
  type RouteAddress,
  type RouteAt,
  type RouteName,
  type RouteParams,
  type RouteRequestBody,
  type RouteResponse,
  routeRequest,
  SERVICE_ROUTES,
} from "../../src/protocol/index.js";
import { InMemoryVectorStore } from "../../src/rag/index.js";
import { HashEmbedding } from "../../src/testing/index.js";
import { conversationModel } from "../app/fixtures/agents.js";

type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
const addressOf = (name: RouteName): RouteAddress =>
  `${SERVICE_ROUTES[name].method} ${SERVICE_ROUTES[name].path}` as RouteAddress;
/** The routes that answer JSON or bytes: every route whose answer is not an SSE stream only. */
const callable = ROUTE_NAMES.filter((name) => SERVICE_ROUTES[name].answer.content !== "sse");

describe("the typed client's call, built from the route table's types", () => {
  it("reaches every route of the table by its address, one route per address", () => {
    // Type level, over the whole table (no list to keep): each address names its route and no other.
    type Misaddressed = { [N in RouteName]: [RouteAt<RouteAddress<N>>] extends [N] ? never : N }[RouteName];
    expectTypeOf<Misaddressed>().toEqualTypeOf<never>();
    // Only SSE-only routes are left to their streams.
    type Streams = Exclude<RouteAddress, CallableRouteAddress>;
    expectTypeOf<"GET /v1/sessions/{id}/events">().toExtend<Streams>();
    expectTypeOf<"PATCH /v1/sessions/{id}">().toExtend<CallableRouteAddress>();
    expect(new Set(ROUTE_NAMES.map(addressOf)).size).toBe(ROUTE_NAMES.length);
  });

  it("types each call's answer, parameters and body from the table", () => {
    const client = new AgentScopeClient();
    expectTypeOf<Answer<typeof client.route<"PATCH /v1/sessions/{id}">>>().toEqualTypeOf<
      RouteResponse<"renameSession">
    >();
    expectTypeOf<Answer<typeof client.route<"GET /v1/sessions/{id}/workspace/file">>>().toEqualTypeOf<Blob>();
    expectTypeOf<Answer<typeof client.route<"DELETE /v1/sessions/{id}">>>().toEqualTypeOf<undefined>();
    const wrong = [
      // @ts-expect-error: renameSession's body needs a title
      () => client.route("PATCH /v1/sessions/{id}", { params: { id: "s1" }, body: {} }),
      // @ts-expect-error: getSession needs the session id
      () => client.route("GET /v1/sessions/{id}", { params: {} }),
      // @ts-expect-error: getSession takes no body
      () => client.route("GET /v1/sessions/{id}", { params: { id: "s1" }, body: { title: "x" } }),
      // @ts-expect-error: there is no such route
      () => client.route("PATCH /v1/agents/{id}", { params: { id: "a" } }),
      // @ts-expect-error: an SSE route is followed with its stream (events), not called
      () => client.route("GET /v1/sessions/{id}/events", { params: { id: "s1" } }),
    ];
    expect(wrong).toHaveLength(5);
  });

  it("the named methods' answers and bodies are the table's types", () => {
    expectTypeOf<Answer<AgentScopeClient["health"]>>().toEqualTypeOf<RouteResponse<"health">>();
    expectTypeOf<Answer<AgentScopeClient["createSession"]>>().toEqualTypeOf<RouteResponse<"createSession">>();
    expectTypeOf<Answer<AgentScopeClient["listSessions"]>>().toEqualTypeOf<RouteResponse<"listSessions">>();
    expectTypeOf<Answer<AgentScopeClient["getSession"]>>().toEqualTypeOf<RouteResponse<"getSession">>();
    expectTypeOf<Answer<AgentScopeClient["renameSession"]>>().toEqualTypeOf<RouteResponse<"renameSession">>();
    expectTypeOf<Answer<AgentScopeClient["messages"]>>().toEqualTypeOf<
      RouteResponse<"messages">["messages"]
    >();
    expectTypeOf<Answer<AgentScopeClient["decisions"]>>().toEqualTypeOf<
      RouteResponse<"decisions">["decisions"]
    >();
    expectTypeOf<Answer<AgentScopeClient["status"]>>().toEqualTypeOf<RouteResponse<"status">>();
    expectTypeOf<Answer<AgentScopeClient["interrupt"]>>().toEqualTypeOf<RouteResponse<"interrupt">>();
    expectTypeOf<Answer<AgentScopeClient["checkpoints"]>>().toEqualTypeOf<RouteResponse<"listCheckpoints">>();
    expectTypeOf<Answer<AgentScopeClient["rewind"]>>().toEqualTypeOf<RouteResponse<"rewindSession">>();
    expectTypeOf<Answer<AgentScopeClient["fork"]>>().toEqualTypeOf<RouteResponse<"forkSession">>();
    expectTypeOf<Answer<AgentScopeClient["memories"]>>().toEqualTypeOf<RouteResponse<"listMemories">>();
    expectTypeOf<Answer<AgentScopeClient["budget"]>>().toEqualTypeOf<RouteResponse<"getBudget">>();
    expectTypeOf<Answer<AgentScopeClient["workspaceFiles"]>>().toEqualTypeOf<
      RouteResponse<"listWorkspaceFiles">
    >();
    expectTypeOf<Answer<KnowledgeBases["create"]>>().toEqualTypeOf<RouteResponse<"createKnowledgeBase">>();
    expectTypeOf<Answer<KnowledgeBases["job"]>>().toEqualTypeOf<RouteResponse<"indexJob">>();
    // What the client sends is what the route's schema accepts.
    expectTypeOf<CreateSessionOptions>().toExtend<RouteRequestBody<"createSession">>();
    expectTypeOf<ConfirmRequest>().toExtend<RouteRequestBody<"confirm">>();
    expectTypeOf<ExternalResultsRequest>().toExtend<RouteRequestBody<"externalResults">>();
    expectTypeOf<RouteParams<"deleteDocument">>().toEqualTypeOf<{ name: string; documentId: string }>();
    expectTypeOf<RouteRequestBody<"getSession">>().toEqualTypeOf<undefined>();
  });

  it("builds the request path: parameters encoded, query appended, a missing parameter named", () => {
    expect(
      routeRequest("GET /v1/sessions/{id}/eval-case", { id: "a b/c" }, { caseId: "c1", replyId: undefined }),
    ).toEqual({ method: "GET", path: "/v1/sessions/a%20b%2Fc/eval-case?caseId=c1" });
    expect(() => routeRequest("GET /v1/knowledge-bases/{name}/jobs/{id}", { name: "kb" })).toThrow(
      /"id" is missing/,
    );
  });

  describe("against the service", () => {
    let dir: string;
    let runtime: ServiceRuntime;
    let client: AgentScopeClient;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "route-client-"));
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
      const app = createApp(runtime, { mounts });
      client = new AgentScopeClient({
        baseUrl: "http://127.0.0.1",
        fetch: async (input, init) => app.request(input, init),
      });
    });
    afterAll(async () => {
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it("its JSON routes answer what their types say", async () => {
      expect((await client.route("GET /v1/health")).status).toBe("ok");
      expect((await client.route("GET /v1/agents")).agents.map((agent) => agent.name)).toEqual(["main"]);
      const created = await client.route("POST /v1/sessions", { body: { sessionId: "s1", title: "typed" } });
      expect(created).toMatchObject({ sessionId: "s1", owner: "local", agent: "main", title: "typed" });
      const page = await client.route("GET /v1/sessions", { query: { limit: 10 } });
      expect(page.sessions.map((s) => s.sessionId)).toEqual(["s1"]);
      const id = { id: "s1" };
      const renamed = await client.route("PATCH /v1/sessions/{id}", {
        params: id,
        body: { title: "renamed" },
      });
      expect(renamed.title).toBe("renamed");
      const detail = await client.route("GET /v1/sessions/{id}", { params: id });
      expect(detail.status).toMatchObject({ sessionId: "s1", running: false, pendingToolCalls: [] });
      expect((await client.route("GET /v1/sessions/{id}/messages", { params: id })).messages).toEqual([]);
      expect((await client.route("GET /v1/sessions/{id}/decisions", { params: id })).decisions).toEqual([]);
      expect((await client.route("GET /v1/sessions/{id}/status", { params: id })).messageCount).toBe(0);
      expect(await client.route("DELETE /v1/sessions/{id}", { params: id })).toBeUndefined();
      expect((await client.route("GET /v1/openapi.json")).openapi).toBe("3.1.0");
      await expect(client.route("GET /v1/sessions/{id}", { params: id })).rejects.toMatchObject({
        status: 404,
        type: "not_found",
      });
    });

    it("every callable route of the table is reached at its method and path (none is 'no route')", async () => {
      for (const name of callable) {
        const route = SERVICE_ROUTES[name];
        const params = Object.fromEntries(
          [...route.path.matchAll(/\{(\w+)\}/g)].map(([, key]) => [key, "missing"]),
        );
        const body = !("body" in route) ? undefined : route.body.kind === "multipart" ? new FormData() : {};
        const call = client.route.bind(client) as (address: string, args: object) => Promise<unknown>;
        const outcome = await call(addressOf(name), { params, body }).then(
          () => "answered",
          (error: unknown) => error,
        );
        if (outcome === "answered") continue;
        expect(outcome, name).toBeInstanceOf(ServiceError);
        expect((outcome as ServiceError).message, name).not.toContain("no route");
        expect((outcome as ServiceError).request, name).toBe(
          `${route.method} ${route.path.replace(/\{\w+\}/g, "missing")}`,
        );
      }
    });
  });
});
