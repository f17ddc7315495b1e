import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import {
  AgentScopeClient,
  applySessionEvent,
  confirmRequestFor,
  emptySessionView,
} from "../../src/client/index.js";
import { caseFromEvents, caseFromStore, evalRecorder, runCase } from "../../src/eval/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { notesAgentOptions, notesFactory, PROMPT_SEARCH, promptFollowingModel } from "./notes-agent.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Records one session through the service: the agent reads a file, asks to write a note, the user approves. */
async function recordSession() {
  const backend = memoryBackend();
  const runtime = new ServiceRuntime({
    backend,
    agents: [{ ...notesAgentOptions(), model: promptFollowingModel(), middlewares: [evalRecorder()] }],
  });
  const server = serve({ fetch: createApp(runtime).fetch, hostname: "127.0.0.1", port: 0 }) as Server;
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await runtime.close();
  });
  const client = new AgentScopeClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  });
  const { sessionId } = await client.createSession();
  const events: AgentEvent[] = [];
  let view = emptySessionView();
  const first = client.send(sessionId, "note what todo.txt says");
  for await (const event of first) {
    events.push(event);
    view = applySessionEvent(view, event, first.lastEventId);
  }
  const ask = view.pendingApprovals[0]!;
  expect(ask.name).toBe("write_note");
  const rest = client.confirm(sessionId, confirmRequestFor(ask, { toolCallId: ask.id, confirmed: true }));
  for await (const event of rest) events.push(event);
  expect(events.at(-1)?.type).toBe("REPLY_END");
  return { events, store: backend.store, sessionId };
}

describe("a session recorded through the service becomes a regression case", () => {
  it("replays green on the same agent, and a prompt change that makes the agent search is a precise divergence", async () => {
    const { events } = await recordSession();
    const evalCase = caseFromEvents(events, { id: "todo-note" });
    expect(evalCase.input.messages.map((m) => m.content)).toMatchObject([
      [{ type: "text", text: "note what todo.txt says" }],
    ]);
    expect(evalCase.confirmations).toEqual([
      { toolCallId: expect.any(String), tool: "write_note", confirmed: true },
    ]);
    const calls = evalCase.recording!.turns.flatMap((t) => t.toolCalls ?? []);
    expect(calls.map((c) => [c.name, c.decision, c.confirmed, c.result?.state])).toEqual([
      ["read_file", "allow", undefined, "success"],
      ["write_note", "ask", true, "success"],
    ]);

    const same = await runCase(evalCase, notesFactory(), { mode: "replay" });
    expect(same.error).toBeUndefined();
    expect(same.divergence).toBeUndefined();
    expect(same.trajectory.finalText).toBe("Done: noted: buy milk");

    // Replay: the recorded model answers, so the first difference is the prompt the agent sent.
    const replayed = await runCase(evalCase, notesFactory(PROMPT_SEARCH), { mode: "replay" });
    expect(replayed.divergence).toMatchObject({ turn: 1, kind: "system", path: "request.system" });
    expect(replayed.divergence!.message).toContain("the system prompt differs");

    // Live: the agent's own model follows the new prompt and calls another tool. The prompt is the
    // first difference; leaving it out of the comparison shows what the agent does differently.
    const live = await runCase(evalCase, notesFactory(PROMPT_SEARCH), { mode: "live" });
    expect(live.divergence).toMatchObject({ turn: 1, kind: "system" });
    const behaviour = await runCase(evalCase, notesFactory(PROMPT_SEARCH), {
      mode: "live",
      ignore: ["system"],
    });
    expect(behaviour.divergence).toEqual({
      turn: 1,
      kind: "tool_call",
      path: "toolCalls[0]",
      expected: { name: "read_file", input: { path: "todo.txt" } },
      actual: { name: "search", input: { query: "todo" } },
      message:
        'turn 1: the agent called search({"query":"todo"}); the recording called read_file({"path":"todo.txt"})',
    });
  });

  it("the stored session (the service's state store) gives the same case, messages included", async () => {
    const { store, sessionId } = await recordSession();
    const evalCase = await caseFromStore(store, sessionId, { id: "from-store" });
    expect(evalCase.recording!.turns).toHaveLength(3);
    expect(
      evalCase.recording!.turns[2]!.request!.messages!.at(-1)!.toolResults!.map((r) => r.output),
    ).toEqual(["buy milk", "noted: buy milk"]);
    const same = await runCase(evalCase, notesFactory(), { mode: "replay" });
    expect(same.error).toBeUndefined();
    expect(same.divergence).toBeUndefined();
  });
});
