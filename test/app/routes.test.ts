import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { foldEvents } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";
import { type Frame, isType, json, readSse, sleep } from "./helpers.js";

const runtimes: ServiceRuntime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

function setup(
  options: { tokens?: Record<string, string>; heartbeatMs?: number; maxBodyBytes?: number } = {},
) {
  const calls = { count: 0 };
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [
      { name: "main", model: conversationModel(), toolkit: [recordTool(undefined, calls)] },
      { name: "slow", model: conversationModel({ delayMs: 40 }), toolkit: [recordTool(undefined, calls)] },
    ],
    heartbeatMs: options.heartbeatMs ?? 15_000,
  });
  runtimes.push(runtime);
  const app = createApp(runtime, {
    tokens: new Map(Object.entries(options.tokens ?? {})),
    ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
  });
  const request = (path: string, init: RequestInit & { token?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (init.token) headers.set("authorization", `Bearer ${init.token}`);
    if (init.json !== undefined && !headers.has("content-type"))
      headers.set("content-type", "application/json");
    const body = init.json !== undefined ? JSON.stringify(init.json) : init.body;
    return app.request(path, { ...init, headers, ...(body !== undefined ? { body } : {}) });
  };
  const sse = { accept: "text/event-stream" };
  const session = async (agent = "main", token?: string) => {
    const response = await request("/v1/sessions", {
      method: "POST",
      json: { agent },
      ...(token ? { token } : {}),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { sessionId: string }).sessionId;
  };
  /** A session paused on a confirmation, with the frames of its first reply. */
  const paused = async () => {
    const id = await session();
    const reply = await request(`/v1/sessions/${id}/replies`, {
      method: "POST",
      json: { text: "hi" },
      headers: sse,
    });
    const { frames } = await readSse(reply);
    return { id, frames };
  };
  const waitIdle = async (id: string) => {
    for (let i = 0; i < 200; i++) {
      const status = (await (await request(`/v1/sessions/${id}/status`)).json()) as { running: boolean };
      if (!status.running) return;
      await sleep(10);
    }
    throw new Error("the run did not finish");
  };
  return { runtime, app, request, sse, session, paused, waitIdle, calls };
}

function ids(frames: Frame[]): number[] {
  return frames.map((f) => f.id!);
}
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("the reply stream", () => {
  it("streams a reply as SSE: one event per frame, id increasing by one, event = type, data = the event", async () => {
    const { frames } = await setup().paused();
    expect(ids(frames)).toEqual(range(1, frames.length));
    for (const frame of frames) expect(frame.event).toBe(frame.data?.type);
    expect(frames[0]?.event).toBe("REPLY_START");
    expect(frames.at(-1)?.event).toBe("REQUIRE_USER_CONFIRM");
  });

  it("a confirmation resumes the same reply; the tool runs once and the history holds the result", async () => {
    const t = setup();
    const { id, frames } = await t.paused();
    const ask = frames.at(-1)!.data as { toolCalls: Array<{ id: string }>; replyId: string };
    const resumed = await t.request(`/v1/sessions/${id}/confirm`, {
      method: "POST",
      json: { answers: [{ toolCallId: ask.toolCalls[0]!.id, confirmed: true }] },
      headers: t.sse,
    });
    const rest = (await readSse(resumed)).frames;
    expect(ids(rest)).toEqual(range(frames.length + 1, frames.length + rest.length));
    expect(rest.at(-1)?.data).toMatchObject({
      type: "REPLY_END",
      finishedReason: "completed",
      replyId: ask.replyId,
    });
    expect(t.calls.count).toBe(1);
    const { messages } = await json(t.request(`/v1/sessions/${id}/messages`));
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    const folded = foldEvents([...frames, ...rest].map((f) => f.data!));
    expect(folded?.content).toEqual(messages[1].content);
  });

  it("reconnecting with Last-Event-ID or ?after= gets exactly the missed events, then live ones", async () => {
    const t = setup();
    const { id, frames } = await t.paused();
    const missed = await t.request(`/v1/sessions/${id}/events`, { headers: { "last-event-id": "3" } });
    expect(ids((await readSse(missed, isType("REQUIRE_USER_CONFIRM"))).frames)).toEqual(
      range(4, frames.length),
    );

    const live = Promise.resolve(t.request(`/v1/sessions/${id}/events?after=${frames.length}`)).then((r) =>
      readSse(r, isType("REPLY_END")),
    );
    await sleep(20);
    const status = await json(t.request(`/v1/sessions/${id}/status`));
    const accepted = await t.request(`/v1/sessions/${id}/confirm`, {
      method: "POST",
      json: { answers: [{ toolCallId: status.pendingToolCalls[0].id, confirmed: true }] },
    });
    expect(accepted.status).toBe(202);
    const after = (await live).frames;
    expect(after[0]?.id).toBe(frames.length + 1);
    expect(ids(after)).toEqual(range(frames.length + 1, frames.length + after.length));
    expect(after.at(-1)?.event).toBe("REPLY_END");
  });

  it("a reply keeps running on the server when its client goes away", async () => {
    const t = setup();
    const id = await t.session("slow");
    const reply = await t.request(`/v1/sessions/${id}/replies`, {
      method: "POST",
      json: { text: "hi" },
      headers: t.sse,
    });
    const early = await readSse(reply, (f) => f.id === 2);
    expect(early.frames.length).toBe(2);
    await t.waitIdle(id);
    const status = await json(t.request(`/v1/sessions/${id}/status`));
    expect(status.waitingFor).toBe("user_confirm");
    const all = await readSse(await t.request(`/v1/sessions/${id}/events`), isType("REQUIRE_USER_CONFIRM"));
    expect(all.frames.at(-1)?.id).toBe(status.lastEventId);
  });

  it("a second start while a reply runs gets 409 and changes nothing", async () => {
    const t = setup();
    const id = await t.session("slow");
    const first = await t.request(`/v1/sessions/${id}/replies`, { method: "POST", json: { text: "hi" } });
    expect(first.status).toBe(202);
    const second = await t.request(`/v1/sessions/${id}/replies`, { method: "POST", json: { text: "again" } });
    expect(second.status).toBe(409);
    expect((await json(second)).error.type).toBe("run_in_progress");
    await t.waitIdle(id);
    const { messages } = await json(t.request(`/v1/sessions/${id}/messages`));
    expect(messages.filter((m: { role: string }) => m.role === "user")).toHaveLength(1);
  });

  it("interrupting a running reply ends it as interrupted; interrupting a paused one ends it without running the tool", async () => {
    const t = setup();
    const id = await t.session("slow");
    const started = await json(
      t.request(`/v1/sessions/${id}/replies`, { method: "POST", json: { text: "hi" } }),
    );
    await sleep(30);
    const interrupted = await t.request(`/v1/sessions/${id}/interrupt`, {
      method: "POST",
      json: { reason: "stop" },
    });
    expect(await interrupted.json()).toMatchObject({ was: "running" });
    const events = await readSse(
      await t.request(`/v1/sessions/${id}/events?after=${started.after}`),
      isType("REPLY_END"),
    );
    expect(events.frames.at(-1)?.data).toMatchObject({ type: "REPLY_END", finishedReason: "interrupted" });

    const p = await t.paused();
    const stop = await t.request(`/v1/sessions/${p.id}/interrupt`, { method: "POST" });
    expect(await stop.json()).toMatchObject({ was: "paused" });
    await t.waitIdle(p.id);
    const end = await readSse(
      await t.request(`/v1/sessions/${p.id}/events?after=${p.frames.length}`),
      isType("REPLY_END"),
    );
    expect(end.frames.at(-1)?.data).toMatchObject({ finishedReason: "interrupted" });
    expect(t.calls.count).toBe(0);
    const nothing = await t.request(`/v1/sessions/${p.id}/interrupt`, { method: "POST" });
    expect(nothing.status).toBe(409);
  });

  it("a reply cut off by a crash is closed in the log (REPLY_END interrupted) before the next one starts; its call is not run", async () => {
    const t = setup();
    const id = await t.session();
    const stored = (await t.runtime.backend.store.load(id))!;
    const state = stored.state;
    state.context.push(userMsg("earlier"), {
      id: "reply_cut",
      name: "main",
      role: "assistant",
      content: [
        { type: "tool_call", id: "call_cut", name: "record", input: '{"note":"x"}', state: "allowed" },
      ],
      metadata: {},
      createdAt: new Date().toISOString(),
    });
    state.replyContext = { replyId: "reply_cut", iteration: 1 };
    await t.runtime.backend.store.save(id, state, { expectedVersion: stored.version });
    const reply = await t.request(`/v1/sessions/${id}/replies`, {
      method: "POST",
      json: { text: "again" },
      headers: t.sse,
    });
    const { frames } = await readSse(reply);
    expect(frames[0]?.data).toMatchObject({
      type: "REPLY_END",
      replyId: "reply_cut",
      finishedReason: "interrupted",
    });
    expect(frames[1]?.event).toBe("REPLY_START");
    const { messages } = await json(t.request(`/v1/sessions/${id}/messages`));
    expect(messages[1].content.find((b: { type: string }) => b.type === "tool_result")).toMatchObject({
      id: "call_cut",
      state: "interrupted",
    });
    expect(t.calls.count).toBe(0);
  });

  it("an idle stream gets heartbeat comments", async () => {
    const t = setup({ heartbeatMs: 30 });
    const id = await t.session();
    const { comments } = await readSse(await t.request(`/v1/sessions/${id}/events`), () => false, 150);
    expect(comments).toContain("keep-alive");
  });
});

describe("sessions and users", () => {
  const tokens = { "tok-a": "alice", "tok-b": "bob" };

  it("requires a valid bearer token when tokens are configured (health stays open)", async () => {
    const t = setup({ tokens });
    expect((await t.request("/v1/health")).status).toBe(200);
    const none = await t.request("/v1/sessions");
    expect(none.status).toBe(401);
    expect((await json(none)).error.type).toBe("authentication");
    expect((await t.request("/v1/sessions", { token: "wrong" })).status).toBe(401);
    expect((await t.request("/v1/sessions", { token: "tok-a" })).status).toBe(200);
  });

  it("another user's session is a 404 for every route, and stays intact", async () => {
    const t = setup({ tokens });
    const id = await t.session("main", "tok-a");
    for (const [method, path, payload] of [
      ["GET", "", undefined],
      ["GET", "/messages", undefined],
      ["GET", "/status", undefined],
      ["GET", "/events", undefined],
      ["POST", "/replies", { text: "hi" }],
      ["POST", "/interrupt", {}],
      ["DELETE", "", undefined],
    ] as const) {
      const response = await t.request(`/v1/sessions/${id}${path}`, {
        method,
        token: "tok-b",
        ...(payload ? { json: payload } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect((await json(response)).error.type).toBe("not_found");
    }
    const bobs = await json(t.request("/v1/sessions", { token: "tok-b" }));
    expect(bobs.sessions).toEqual([]);
    const alices = await json(t.request("/v1/sessions", { token: "tok-a" }));
    expect(alices.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([id]);
  });

  it("lists sessions by page and deletes them", async () => {
    const t = setup();
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await t.session());
    const first = await json(t.request("/v1/sessions?limit=3"));
    const second = await json(t.request(`/v1/sessions?limit=3&cursor=${first.nextCursor}`));
    expect(second.nextCursor).toBeUndefined();
    expect([...first.sessions, ...second.sessions].map((s: { sessionId: string }) => s.sessionId)).toEqual(
      [...made].sort(),
    );
    expect((await t.request(`/v1/sessions/${made[0]}`, { method: "DELETE" })).status).toBe(204);
    expect((await t.request(`/v1/sessions/${made[0]}`)).status).toBe(404);
    expect((await t.request(`/v1/sessions/${made[0]}/events`)).status).toBe(404);
  });

  it("serves an OpenAPI document naming every route", async () => {
    const doc = await json(setup().request("/v1/openapi.json"));
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        "/v1/sessions",
        "/v1/sessions/{id}",
        "/v1/sessions/{id}/messages",
        "/v1/sessions/{id}/status",
        "/v1/sessions/{id}/events",
        "/v1/sessions/{id}/replies",
        "/v1/sessions/{id}/confirm",
        "/v1/sessions/{id}/external-results",
        "/v1/sessions/{id}/interrupt",
        "/v1/health",
      ]),
    );
  });
});

describe("bad requests get a 4xx with { error: { type, message } } and change nothing", () => {
  const cases: Array<{
    name: string;
    status: number;
    type: string;
    mentions?: string;
    send: (id: string) => [string, RequestInit & { json?: unknown }];
  }> = [
    {
      name: "bad JSON",
      status: 400,
      type: "invalid_json",
      send: (id) => [
        `/v1/sessions/${id}/replies`,
        { method: "POST", body: "{nope", headers: { "content-type": "application/json" } },
      ],
    },
    {
      name: "a text/plain body",
      status: 415,
      type: "unsupported_media_type",
      send: (id) => [`/v1/sessions/${id}/replies`, { method: "POST", body: '{"text":"hi"}' }],
    },
    {
      name: "wrong shape",
      status: 400,
      type: "invalid_request",
      mentions: "text",
      send: (id) => [`/v1/sessions/${id}/replies`, { method: "POST", json: { text: 5 } }],
    },
    {
      name: "unknown field",
      status: 400,
      type: "invalid_request",
      send: (id) => [`/v1/sessions/${id}/replies`, { method: "POST", json: { txt: "hi" } }],
    },
    {
      name: "a bad Msg",
      status: 400,
      type: "invalid_request",
      mentions: "input",
      send: (id) => [`/v1/sessions/${id}/replies`, { method: "POST", json: { input: { role: "user" } } }],
    },
    {
      name: "an assistant message as input",
      status: 400,
      type: "invalid_request",
      mentions: "role",
      send: (id) => [
        `/v1/sessions/${id}/replies`,
        {
          method: "POST",
          json: {
            input: {
              id: "m1",
              name: "x",
              role: "assistant",
              content: [],
              metadata: {},
              createdAt: "2025-01-01T00:00:00Z",
            },
          },
        },
      ],
    },
    {
      name: "unknown session",
      status: 404,
      type: "not_found",
      send: () => ["/v1/sessions/nope/replies", { method: "POST", json: { text: "hi" } }],
    },
    {
      name: "body over the limit",
      status: 413,
      type: "payload_too_large",
      send: (id) => [`/v1/sessions/${id}/replies`, { method: "POST", json: { text: "x".repeat(5000) } }],
    },
    {
      name: "a new message while a confirmation waits",
      status: 409,
      type: "conflict",
      mentions: "waiting",
      send: (id) => [`/v1/sessions/${id}/replies`, { method: "POST", json: { text: "hi" } }],
    },
    {
      name: "an answer for a call that is not waiting",
      status: 409,
      type: "conflict",
      mentions: "call_nope",
      send: (id) => [
        `/v1/sessions/${id}/confirm`,
        { method: "POST", json: { answers: [{ toolCallId: "call_nope", confirmed: true }] } },
      ],
    },
    {
      name: "an answer for another reply",
      status: 409,
      type: "conflict",
      send: (id) => [
        `/v1/sessions/${id}/confirm`,
        { method: "POST", json: { replyId: "reply_old", answers: [{ toolCallId: "x", confirmed: true }] } },
      ],
    },
    {
      name: "external results while a confirmation waits",
      status: 409,
      type: "conflict",
      send: (id) => [
        `/v1/sessions/${id}/external-results`,
        {
          method: "POST",
          json: {
            toolResults: [{ type: "tool_result", id: "x", name: "record", output: "ok", state: "success" }],
          },
        },
      ],
    },
    {
      name: "confirm with neither form",
      status: 400,
      type: "invalid_request",
      send: (id) => [`/v1/sessions/${id}/confirm`, { method: "POST", json: {} }],
    },
    {
      name: "a bad Last-Event-ID",
      status: 400,
      type: "invalid_request",
      send: (id) => [`/v1/sessions/${id}/events`, { headers: { "last-event-id": "abc" } }],
    },
    ...["1e3", "0x10", " 3", "-1", "2.0"].map((value) => ({
      name: `after="${value}" (Last-Event-ID is read the same way)`,
      status: 400 as const,
      type: "invalid_request",
      send: (id: string): [string, RequestInit] => [
        `/v1/sessions/${id}/events?after=${encodeURIComponent(value)}`,
        {},
      ],
    })),
    {
      name: "a Last-Event-ID ahead of the log",
      status: 400,
      type: "invalid_request",
      send: (id) => [`/v1/sessions/${id}/events?after=99`, {}],
    },
    {
      name: "an unknown agent",
      status: 400,
      type: "invalid_request",
      mentions: "agent",
      send: () => ["/v1/sessions", { method: "POST", json: { agent: "ghost" } }],
    },
    {
      name: "a taken session id",
      status: 409,
      type: "conflict",
      send: (id) => ["/v1/sessions", { method: "POST", json: { sessionId: id } }],
    },
    {
      name: "a bad page size",
      status: 400,
      type: "invalid_request",
      send: () => ["/v1/sessions?limit=0", {}],
    },
    { name: "an unknown route", status: 404, type: "not_found", send: () => ["/v1/nothing", {}] },
  ];

  it.each(cases)("$name → $status $type", async ({ status, type, mentions, send }) => {
    const t = setup({ maxBodyBytes: 2000 });
    const { id } = await t.paused();
    const snapshot = async () => ({
      status: await (await t.request(`/v1/sessions/${id}/status`)).json(),
      messages: await (await t.request(`/v1/sessions/${id}/messages`)).json(),
      sessions: await (await t.request("/v1/sessions")).json(),
    });
    const before = await snapshot();
    const [path, init] = send(id);
    const response = await t.request(path, init);
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe(type);
    expect(body.error.message.length).toBeGreaterThan(5);
    if (mentions) expect(body.error.message).toContain(mentions);
    await t.waitIdle(id);
    expect(await snapshot()).toEqual(before);
    expect(t.calls.count).toBe(0);
  });
});
