import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import type { ServiceBackend } from "../../src/app/server/backend/types.js";
import { ConfigError, parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { RequestError } from "../../src/app/server/request-error.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { builtinTools } from "../../src/tool/builtin/index.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";
import { readSse } from "./helpers.js";

const runtimes: ServiceRuntime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
});

/** A memory backend that counts the session-record and state reads. */
function countingBackend() {
  const backend: ServiceBackend = memoryBackend();
  const reads = { records: 0, states: 0 };
  const get = backend.sessions.get.bind(backend.sessions);
  backend.sessions.get = (sessionId) => {
    reads.records += 1;
    return get(sessionId);
  };
  const load = backend.store.load.bind(backend.store);
  backend.store.load = (sessionId) => {
    reads.states += 1;
    return load(sessionId);
  };
  return { backend, reads };
}

function serve(backend: ServiceBackend = memoryBackend()) {
  const runtime = new ServiceRuntime({
    backend,
    agents: [{ name: "main", model: conversationModel(), toolkit: [recordTool()] }],
  });
  runtimes.push(runtime);
  const app = createApp(runtime);
  const post = (path: string, body: unknown, accept = "application/json") =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json", accept },
      body: JSON.stringify(body),
    });
  return { runtime, post };
}

describe("the runtime refuses with kinds, not HTTP codes", () => {
  it("a missing session, a taken id and a reply that waits for nothing are RequestErrors with a kind", async () => {
    const { runtime } = serve();
    const missing = await runtime.getSession("alice", "nope").catch((error: unknown) => error);
    expect(RequestError.isInstance(missing)).toBe(true);
    expect((missing as RequestError).info).toEqual({
      type: "not_found",
      message: 'session "nope" does not exist (or belongs to another user)',
    });
    expect(missing).not.toHaveProperty("status");
    await runtime.createSession("alice", { sessionId: "s1" });
    const taken = await runtime.createSession("alice", { sessionId: "s1" }).catch((error: unknown) => error);
    expect((taken as RequestError).info.type).toBe("conflict");
    const idle = await runtime.interrupt("alice", "s1").catch((error: unknown) => error);
    expect((idle as RequestError).info.type).toBe("invalid_state");
  });
});

describe("straight service paths", () => {
  it("a confirm request reads the session record once and the state once", async () => {
    const { backend, reads } = countingBackend();
    const { runtime, post } = serve(backend);
    await runtime.createSession("local", { sessionId: "s1" });
    await readSse(await post("/v1/sessions/s1/replies", { text: "hi" }, "text/event-stream"));
    const toolCallId = (await runtime.status("local", "s1")).pendingToolCalls[0]!.id;
    reads.records = 0;
    reads.states = 0;
    const response = await post("/v1/sessions/s1/confirm", { answers: [{ toolCallId, confirmed: true }] });
    expect(response.status).toBe(202);
    expect(reads).toEqual({ records: 1, states: 1 });
  });

  it("GET /v1/sessions/:id reads the record once for the record and its status", async () => {
    const { backend, reads } = countingBackend();
    const { runtime } = serve(backend);
    await runtime.createSession("local", { sessionId: "s1" });
    reads.records = 0;
    const app = createApp(runtime);
    expect((await app.request("/v1/sessions/s1")).status).toBe(200);
    expect(reads.records).toBe(1);
  });

  it("the config takes every built-in tool by name, from the tool layer's list", () => {
    const names = builtinTools().map((tool) => tool.name);
    const config = parseServiceConfig({ agents: [{ name: "main", model: "scripted", tools: names }] });
    expect(config.agents[0]!.tools).toEqual(names);
    expect(() =>
      parseServiceConfig({ agents: [{ name: "main", model: "scripted", tools: ["Telnet"] }] }),
    ).toThrow(ConfigError);
  });
});
