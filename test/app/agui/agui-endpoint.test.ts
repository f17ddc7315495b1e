import type { AddressInfo } from "node:net";
import { type BaseEvent, HttpAgent } from "@ag-ui/client";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { aguiRoutes } from "../../../src/app/agui/index.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { AgentScopeError } from "../../../src/message/index.js";
import { ScriptedModel, type ScriptedStep } from "../../../src/testing/index.js";
import { functionTool } from "../../../src/tool/index.js";

const weather = functionTool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `sunny in ${city}`,
});

interface Server {
  url: string;
  runtime: ServiceRuntime;
  notes: string[];
  close(): Promise<void>;
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(steps: ScriptedStep[], tokens?: Map<string, string>): Promise<Server> {
  const notes: string[] = [];
  const writeNote = functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string() }),
    suggestRules: () => ["write_note"],
    execute: ({ text }) => {
      notes.push(text);
      return `wrote ${text}`;
    },
  });
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [{ name: "helper", model: new ScriptedModel(steps), toolkit: [weather, writeNote] }],
    heartbeatMs: 20,
  });
  const app = createApp(runtime, { mounts: [aguiRoutes(runtime)], ...(tokens ? { tokens } : {}) });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const handle: Server = {
    url: `http://127.0.0.1:${port}/v1/agui`,
    runtime,
    notes,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
  servers.push(handle);
  return handle;
}

/** Runs the agent and returns every event the client accepted. */
async function run(agent: HttpAgent, params?: Parameters<HttpAgent["runAgent"]>[0]): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  await agent.runAgent(params, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

function userTurn(agent: HttpAgent, id: string, content: string): void {
  agent.addMessage({ id, role: "user", content });
}

describe("POST /v1/agui with the official @ag-ui/client HttpAgent", () => {
  it("runs a reply with a tool and ends with RUN_FINISHED; the client's messages hold the whole turn", async () => {
    const server = await start([
      {
        text: "Checking.",
        toolCalls: [{ id: "c1", name: "get_weather", input: { city: "Paris" } }],
        delayMs: 10,
      },
      { thinking: "it is sunny", text: "Sunny in Paris." },
    ]);
    const agent = new HttpAgent({ url: server.url, threadId: "thread-weather" });
    userTurn(agent, "u1", "Weather in Paris?");
    const events = await run(agent);
    expect(events[0]?.type).toBe("RUN_STARTED");
    expect(events.at(-1)).toMatchObject({
      type: "RUN_FINISHED",
      threadId: "thread-weather",
      outcome: { type: "success" },
    });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining([
        "TOOL_CALL_START",
        "TOOL_CALL_RESULT",
        "REASONING_MESSAGE_CONTENT",
        "STATE_SNAPSHOT",
      ]),
    );

    const roles = agent.messages.map((m) => m.role);
    expect(roles).toEqual(["user", "assistant", "tool", "reasoning", "assistant"]);
    expect(agent.messages[1]).toMatchObject({
      content: "Checking.",
      toolCalls: [{ id: "c1", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }],
    });
    expect(agent.messages[2]).toMatchObject({ toolCallId: "c1", content: "sunny in Paris" });
    expect(agent.messages.at(-1)).toMatchObject({ content: "Sunny in Paris." });
    expect(agent.state).toMatchObject({ agentscope: { sessionId: "thread-weather", status: "completed" } });

    // The thread is a session of the service: the same reply is in its history.
    const history = await server.runtime.messages("local", "thread-weather");
    expect(history.map((m) => m.id)).toEqual(["u1", expect.any(String)]);
  });

  it("pauses for a confirmation with an interrupt outcome and resumes with the approval in a new run", async () => {
    const server = await start([
      { toolCalls: [{ id: "c7", name: "write_note", input: { text: "buy milk" } }] },
      { text: "Saved your note." },
    ]);
    const agent = new HttpAgent({ url: server.url, threadId: "thread-note" });
    userTurn(agent, "u1", "Note: buy milk");
    const first = await run(agent);
    const finished = first.at(-1) as BaseEvent & { outcome?: { type: string } };
    expect(finished).toMatchObject({
      type: "RUN_FINISHED",
      outcome: {
        type: "interrupt",
        interrupts: [{ id: "confirm:c7", reason: "tool_call", toolCallId: "c7" }],
      },
    });
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(["confirm:c7"]);
    expect(agent.pendingInterrupts[0]?.metadata).toMatchObject({
      agentscope: { suggestedRules: ["write_note"] },
    });
    expect(server.notes).toEqual([]);

    const second = await run(agent, {
      resume: [{ interruptId: "confirm:c7", status: "resolved", payload: { approved: true } }],
    });
    expect(second[0]?.type).toBe("RUN_STARTED");
    expect(second.at(-1)).toMatchObject({ type: "RUN_FINISHED", outcome: { type: "success" } });
    expect(second.some((e) => e.type === "TOOL_CALL_START")).toBe(false);
    expect(server.notes).toEqual(["buy milk"]);
    expect(agent.pendingInterrupts).toEqual([]);
    const tool = agent.messages.find((m) => m.role === "tool");
    expect(tool).toMatchObject({ toolCallId: "c7", content: "wrote buy milk" });
    expect(agent.messages.at(-1)).toMatchObject({ role: "assistant", content: "Saved your note." });
  });

  it("a failing model ends the run with RUN_ERROR, not RUN_FINISHED", async () => {
    const server = await start([
      { error: new AgentScopeError({ type: "authentication", message: "bad API key" }) },
    ]);
    const agent = new HttpAgent({ url: server.url, threadId: "thread-error" });
    userTurn(agent, "u1", "hi");
    const events = await run(agent);
    expect(events.at(-1)).toMatchObject({
      type: "RUN_ERROR",
      message: "bad API key",
      code: "authentication",
    });
    expect(events.some((e) => e.type === "RUN_FINISHED")).toBe(false);
  });

  it("a thread with open interrupts refuses new input without resume (RUN_ERROR) and runs nothing", async () => {
    const server = await start([{ toolCalls: [{ id: "c1", name: "write_note", input: { text: "x" } }] }]);
    const first = new HttpAgent({ url: server.url, threadId: "thread-open" });
    userTurn(first, "u1", "note x");
    await run(first);
    // A second client on the same thread that does not know about the interrupt.
    const other = new HttpAgent({ url: server.url, threadId: "thread-open" });
    userTurn(other, "u2", "something else");
    const events = await run(other);
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "invalid_request" });
    expect((events.at(-1) as { message?: string }).message).toContain("open interrupts");
    const status = await server.runtime.status("local", "thread-open");
    expect(status.waitingFor).toBe("user_confirm");
    expect(server.notes).toEqual([]);
  });

  it("a resume that does not answer the open interrupt is a RUN_ERROR and the reply stays paused", async () => {
    const server = await start([{ toolCalls: [{ id: "c1", name: "write_note", input: { text: "x" } }] }]);
    const agent = new HttpAgent({ url: server.url, threadId: "thread-bad-resume" });
    userTurn(agent, "u1", "note x");
    await run(agent);
    const other = new HttpAgent({ url: server.url, threadId: "thread-bad-resume" });
    const events = await run(other, {
      resume: [{ interruptId: "confirm:nope", status: "resolved", payload: { approved: true } }],
    });
    expect(events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "invalid_request" });
    expect((await server.runtime.status("local", "thread-bad-resume")).waitingFor).toBe("user_confirm");
  });

  it("bodies that are not RunAgentInput and other users' threads are 4xx JSON errors", async () => {
    const server = await start(
      [{ text: "hi" }],
      new Map([
        ["tok-a", "alice"],
        ["tok-b", "bob"],
      ]),
    );
    const post = (body: unknown, token: string) =>
      fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${token}`,
          accept: "text/event-stream",
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
      });
    const bad = await post({ threadId: "t", messages: [] }, "tok-a");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: unknown }).error).toMatchObject({
      type: "invalid_request",
      message: expect.stringContaining("runId"),
    });
    expect((await post("{not json", "tok-a")).status).toBe(400);

    const ok = await post(
      { threadId: "alice-thread", runId: "r1", messages: [{ id: "u1", role: "user", content: "hi" }] },
      "tok-a",
    );
    expect(ok.status).toBe(200);
    const frames = await ok.text();
    expect(
      frames
        .split("\n\n")
        .filter((f) => f.startsWith("data: "))
        .at(-1),
    ).toContain('"RUN_FINISHED"');
    const theirs = await post({ threadId: "alice-thread", runId: "r2", messages: [] }, "tok-b");
    expect(theirs.status).toBe(404);
    expect((await fetch(server.url, { method: "POST", body: "{}" })).status).toBe(401);
  });
});
