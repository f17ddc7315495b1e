import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import type {
  AgentScopeClient,
  ConfirmRequest,
  CreateSessionOptions,
  ExternalResultsRequest,
  KnowledgeBases,
} from "../../src/client/index.js";
import {
  type RouteName,
  type RouteParams,
  type RouteRequestBody,
  type RouteResponse,
  SERVICE_ROUTES,
} from "../../src/protocol/index.js";
import { conversationModel } from "../app/fixtures/agents.js";

/** What one call of a route takes: its path parameters, and its JSON body when it has one. */
type RouteArgs<N extends RouteName> = {
  params: RouteParams<N>;
  query?: Record<string, string>;
} & (RouteRequestBody<N> extends undefined ? { body?: undefined } : { body: RouteRequestBody<N> });

/** A client built from nothing but the route table: a route's name, its arguments, its typed answer. */
function tableClient(fetcher: (request: Request) => Response | Promise<Response>) {
  return async <N extends RouteName>(name: N, args: RouteArgs<N>): Promise<RouteResponse<N>> => {
    const route = SERVICE_ROUTES[name];
    const params = args.params as Record<string, string>;
    let path: string = route.path.replace(/\{(\w+)\}/g, (_, key: string) => encodeURIComponent(params[key]!));
    if (args.query) path += `?${new URLSearchParams(args.query)}`;
    const init: RequestInit = { method: route.method };
    if (args.body !== undefined) {
      init.headers = { "content-type": "application/json" };
      init.body = JSON.stringify(args.body);
    }
    const response = await fetcher(new Request(`http://127.0.0.1${path}`, init));
    if (!response.ok) throw new Error(`${name}: ${response.status} ${await response.text()}`);
    return (response.status === 204 ? undefined : await response.json()) as RouteResponse<N>;
  };
}
type TableCall = ReturnType<typeof tableClient>;

const id = { id: "s1" };
const name = { name: "kb" };
/**
 * One typed call per route of the table: a route added without a call here, or a call whose
 * parameters or body do not match the table, does not compile (tsc runs over test/).
 */
const EVERY_ROUTE: { [N in RouteName]: (call: TableCall) => Promise<RouteResponse<N>> } = {
  health: (call) => call("health", { params: {} }),
  openApi: (call) => call("openApi", { params: {} }),
  listAgents: (call) => call("listAgents", { params: {} }),
  createSession: (call) => call("createSession", { params: {}, body: { sessionId: "s1", title: "typed" } }),
  listSessions: (call) => call("listSessions", { params: {}, query: { limit: "10" } }),
  getSession: (call) => call("getSession", { params: id }),
  renameSession: (call) => call("renameSession", { params: id, body: { title: "renamed" } }),
  messages: (call) => call("messages", { params: id }),
  decisions: (call) => call("decisions", { params: id }),
  status: (call) => call("status", { params: id }),
  events: (call) => call("events", { params: id }),
  startReply: (call) => call("startReply", { params: id, body: { text: "hi" } }),
  confirm: (call) =>
    call("confirm", { params: id, body: { answers: [{ toolCallId: "c1", confirmed: true }] } }),
  externalResults: (call) =>
    call("externalResults", {
      params: id,
      body: { toolResults: [{ type: "tool_result", id: "c1", name: "x", output: "ok", state: "success" }] },
    }),
  interrupt: (call) => call("interrupt", { params: id, body: { reason: "stop" } }),
  listCheckpoints: (call) => call("listCheckpoints", { params: id }),
  rewindSession: (call) => call("rewindSession", { params: id, body: { checkpoint: "cp-1" } }),
  forkSession: (call) => call("forkSession", { params: id, body: { checkpoint: "cp-1" } }),
  editMessage: (call) =>
    call("editMessage", { params: { id: "s1", messageId: "m1" }, body: { text: "again" } }),
  deleteSession: (call) => call("deleteSession", { params: id }),
  listWorkspaceFiles: (call) => call("listWorkspaceFiles", { params: id, query: { path: "." } }),
  downloadWorkspaceFile: (call) => call("downloadWorkspaceFile", { params: id, query: { path: "a.txt" } }),
  sessionEvalCase: (call) => call("sessionEvalCase", { params: id, query: { caseId: "c1" } }),
  inspectAgent: (call) => call("inspectAgent", { params: id }),
  sessionState: (call) => call("sessionState", { params: id }),
  runTool: (call) =>
    call("runTool", { params: { id: "s1", name: "lookup" }, body: { input: { id: "A1" }, approved: false } }),
  listMemoryNotes: (call) => call("listMemoryNotes", { params: {} }),
  deleteMemoryNote: (call) => call("deleteMemoryNote", { params: {}, query: { path: "/memories/a.md" } }),
  listMemories: (call) => call("listMemories", { params: {} }),
  deleteMemory: (call) => call("deleteMemory", { params: { id: "m1" } }),
  forgetMemories: (call) => call("forgetMemories", { params: {} }),
  createKnowledgeBase: (call) => call("createKnowledgeBase", { params: {}, body: { name: "kb" } }),
  listKnowledgeBases: (call) => call("listKnowledgeBases", { params: {} }),
  deleteKnowledgeBase: (call) => call("deleteKnowledgeBase", { params: name }),
  uploadDocuments: (call) => call("uploadDocuments", { params: name }),
  indexJob: (call) => call("indexJob", { params: { name: "kb", id: "j1" } }),
  indexJobEvents: (call) => call("indexJobEvents", { params: { name: "kb", id: "j1" } }),
  listDocuments: (call) => call("listDocuments", { params: name }),
  deleteDocument: (call) => call("deleteDocument", { params: { name: "kb", documentId: "d1" } }),
  searchKnowledge: (call) => call("searchKnowledge", { params: name, body: { query: "reactor", topK: 3 } }),
  agui: (call) => call("agui", { params: {} }),
  a2aAgentCard: (call) => call("a2aAgentCard", { params: { agent: "main" } }),
  a2a: (call) => call("a2a", { params: { agent: "main" } }),
  openaiModels: (call) => call("openaiModels", { params: {} }),
  openaiModel: (call) => call("openaiModel", { params: { model: "main" } }),
  openaiChatCompletions: (call) => call("openaiChatCompletions", { params: {} }),
  aiSdkChat: (call) => call("aiSdkChat", { params: { agent: "main" } }),
  aiSdkChatStream: (call) => call("aiSdkChatStream", { params: { agent: "main", id: "s1" } }),
  aiSdkChatStop: (call) => call("aiSdkChatStop", { params: { agent: "main", id: "s1" }, body: {} }),
};

type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

describe("a client built from the route table's types", () => {
  it("covers every route of the table", () => {
    expect(Object.keys(EVERY_ROUTE).sort()).toEqual(Object.keys(SERVICE_ROUTES).sort());
  });

  it("refuses, at compile time, a call that does not match its route", () => {
    const wrong = [
      // @ts-expect-error: renameSession's body needs a title
      (call: TableCall) => call("renameSession", { params: id, body: {} }),
      // @ts-expect-error: getSession needs the session id
      (call: TableCall) => call("getSession", { params: {} }),
      // @ts-expect-error: there is no such route
      (call: TableCall) => call("renameAgent", { params: {} }),
    ];
    expect(wrong).toHaveLength(3);
  });

  it("the typed client's answers and bodies are the table's types", () => {
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

  describe("against the service", () => {
    let runtime: ServiceRuntime;
    let call: TableCall;
    beforeAll(() => {
      runtime = new ServiceRuntime({
        backend: memoryBackend(),
        agents: [{ name: "main", model: conversationModel() }],
      });
      const app = createApp(runtime);
      call = tableClient((request) => app.fetch(request));
    });
    afterAll(() => runtime.close());

    it("its JSON routes answer what their types say", async () => {
      expect((await EVERY_ROUTE.health(call)).status).toBe("ok");
      expect((await EVERY_ROUTE.listAgents(call)).agents.map((agent) => agent.name)).toEqual(["main"]);
      const created = await EVERY_ROUTE.createSession(call);
      expect(created).toMatchObject({ sessionId: "s1", owner: "local", agent: "main", title: "typed" });
      expect((await EVERY_ROUTE.listSessions(call)).sessions.map((s) => s.sessionId)).toEqual(["s1"]);
      expect((await EVERY_ROUTE.renameSession(call)).title).toBe("renamed");
      const detail = await EVERY_ROUTE.getSession(call);
      expect(detail.status).toMatchObject({ sessionId: "s1", running: false, pendingToolCalls: [] });
      expect((await EVERY_ROUTE.messages(call)).messages).toEqual([]);
      expect((await EVERY_ROUTE.decisions(call)).decisions).toEqual([]);
      expect((await EVERY_ROUTE.status(call)).messageCount).toBe(0);
      expect(await EVERY_ROUTE.deleteSession(call)).toBeUndefined();
      expect((await EVERY_ROUTE.openApi(call)).openapi).toBe("3.1.0");
    });
  });
});
