import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterEach, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import {
  AgentScopeClient,
  applySessionEvent,
  confirmRequestFor,
  emptySessionView,
} from "../../src/client/index.js";
import { subAgentTool } from "../../src/multiagent/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it("a sub-agent's approval: the run stream ends at its pause, the view lists it, and confirming by the sub-run's reply id finishes the run", async () => {
  const notes: string[] = [];
  const writeNote = functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => {
      notes.push(text);
      return `wrote ${text}`;
    },
  });
  const helper = new Agent({
    name: "helper",
    model: new ScriptedModel([
      { toolCalls: [{ id: "call_note", name: "write_note", input: { text: "buy milk" } }] },
      { text: "Noted." },
    ]),
    toolkit: [writeNote],
  });
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [
      {
        name: "main",
        model: new ScriptedModel([
          { toolCalls: [{ id: "call_helper", name: "helper", input: { prompt: "note: buy milk" } }] },
          { text: "The helper noted it." },
        ]),
        toolkit: [subAgentTool(helper, { description: "Takes notes" })],
      },
    ],
  });
  const app = createApp(runtime);
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }) as Server;
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

  let view = emptySessionView();
  const first = client.send(sessionId, "note that I need milk");
  for await (const event of first) {
    view = applySessionEvent(view, event, first.lastEventId);
  }
  expect(view.pendingApprovals).toHaveLength(1);
  const ask = view.pendingApprovals[0]!;
  expect(ask).toMatchObject({ id: "call_note", name: "write_note", source: "main/helper" });
  expect(view.subRuns.map((run) => run.toolCallId)).toEqual(["call_helper"]);
  expect(notes).toEqual([]);

  const request = confirmRequestFor(ask, { toolCallId: ask.id, confirmed: true });
  expect(request).toEqual({
    replyId: ask.replyId,
    confirmResults: [
      { confirmed: true, toolCall: { id: "call_note", name: "write_note", input: ask.input } },
    ],
  });
  const rest = client.confirm(sessionId, request);
  for await (const event of rest) {
    view = applySessionEvent(view, event, rest.lastEventId);
  }
  expect(notes).toEqual(["buy milk"]);
  expect(view.pendingApprovals).toEqual([]);
  expect(view.running).toBe(false);
  expect(view.messages.at(-1)?.finishedReason).toBe("completed");
});
