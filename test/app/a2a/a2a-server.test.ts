import type { AddressInfo } from "node:net";
import { type Message, Role, TaskState } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from "@a2a-js/sdk/client";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { a2aRoutes, EVENT_METADATA_KEY } from "../../../src/app/a2a/index.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { ScriptedModel, type ScriptedStep } from "../../../src/testing/index.js";
import { recordedNotes } from "../helpers.js";

interface Server {
  base: string;
  notes: string[];
  close(): Promise<void>;
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const TOKEN = "a2a-test-token";

async function start(steps: ScriptedStep[]): Promise<Server> {
  const { notes, writeNote } = recordedNotes();
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [{ name: "helper", model: new ScriptedModel(steps), toolkit: [writeNote] }],
    heartbeatMs: 20,
  });
  const app = createApp(runtime, { mounts: [a2aRoutes(runtime)], tokens: new Map([[TOKEN, "alice"]]) });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const handle: Server = {
    base: `http://127.0.0.1:${port}/v1/a2a/helper/`,
    notes,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
  servers.push(handle);
  return handle;
}

const authFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set("Authorization", `Bearer ${TOKEN}`);
  return fetch(input, { ...init, headers });
};

async function clientFor(server: Server) {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch }),
    }),
  );
  return factory.createFromUrl(server.base);
}

function userMessage(text: string, extra: Partial<Message> = {}): Message {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
    ...extra,
  };
}

describe("A2A endpoint with the SDK's own client", () => {
  it("serves the card and streams a reply: text as artifact updates, our events in metadata, completed", async () => {
    const server = await start([{ text: "Hello from helper." }]);
    const client = await clientFor(server);
    const card = await client.getAgentCard();
    expect(card.name).toBe("helper");
    expect(card.skills.map((s) => s.name)).toEqual(["write_note"]);

    const updates = await streamOf(client, userMessage("hi"));
    const states = statesOf(updates);
    expect(states[0]).toBe(TaskState.TASK_STATE_SUBMITTED);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(updates)).toBe("Hello from helper.");
    const last = payloads(updates).at(-1)!;
    expect(last.value.status.message.parts[0].content.value).toBe("Hello from helper.");
    // Our events ride along: the reply's REPLY_START and REPLY_END are in the metadata.
    const ours = payloads(updates)
      .map((p) => p.value.metadata?.[EVENT_METADATA_KEY]?.type)
      .filter(Boolean);
    expect(ours[0]).toBe("REPLY_START");
    expect(ours.at(-1)).toBe("REPLY_END");
  });

  it("a confirmation is input-required; the answer on the same task runs the tool once and completes", async () => {
    const server = await start([
      { toolCalls: [{ id: "call_n", name: "write_note", input: { text: "milk" } }] },
      { text: "Noted milk." },
    ]);
    const client = await clientFor(server);
    const first = await streamOf(client, userMessage("note milk"));
    expect(statesOf(first).at(-1)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const ask = payloads(first).at(-1)!.value;
    expect(ask.status.message.parts[0].content.value).toContain('Confirm: write_note({"text":"milk"})');
    expect(server.notes).toEqual([]);
    const second = await streamOf(
      client,
      userMessage("yes", { taskId: ask.taskId, contextId: ask.contextId }),
    );
    expect(statesOf(second).at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(artifactText(second)).toBe("Noted milk.");
    expect(server.notes).toEqual(["milk"]);
    const task = await client.getTask({ id: ask.taskId } as never);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("cancel interrupts a paused task's reply", async () => {
    const server = await start([{ toolCalls: [{ id: "call_n", name: "write_note", input: { text: "x" } }] }]);
    const client = await clientFor(server);
    const first = await streamOf(client, userMessage("note x"));
    const ask = payloads(first).at(-1)!.value;
    const canceled = await client.cancelTask({ id: ask.taskId } as never);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(server.notes).toEqual([]);
  });

  it("speaks v0.3 message/send to a client that sends no A2A-Version", async () => {
    const server = await start([{ text: "legacy hello" }]);
    const response = await authFetch(server.base.replace(/\/$/, ""), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: {
          message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hi" }] },
        },
      }),
    });
    const body = (await response.json()) as {
      result: { kind: string; status: { state: string; message: { parts: Array<{ text: string }> } } };
    };
    expect(body.result.kind).toBe("task");
    expect(body.result.status.state).toBe("completed");
    expect(body.result.status.message.parts[0]!.text).toBe("legacy hello");
  });

  it("is under the service's bearer auth, and an unknown agent is a 404", async () => {
    const server = await start([]);
    const card = await fetch(`${server.base}.well-known/agent-card.json`);
    expect(card.status).toBe(401);
    const missing = await authFetch(server.base.replace("/helper/", "/nobody/.well-known/agent-card.json"));
    expect(missing.status).toBe(404);
  });
});

// biome-ignore lint/suspicious/noExplicitAny: the SDK's stream responses are a tagged union read loosely here
type Payload = { $case: string; value: any };
type Client = Awaited<ReturnType<typeof clientFor>>;

async function streamOf(client: Client, message: Message): Promise<unknown[]> {
  const updates: unknown[] = [];
  for await (const update of client.sendMessageStream({ message } as never)) updates.push(update);
  return updates;
}

function payloads(updates: unknown[]): Payload[] {
  return updates.map((u) => (u as { payload: Payload }).payload);
}

function statesOf(updates: unknown[]): TaskState[] {
  return payloads(updates).flatMap((p) =>
    p.$case === "task" || p.$case === "statusUpdate" ? [p.value.status.state as TaskState] : [],
  );
}

function artifactText(updates: unknown[]): string {
  return payloads(updates)
    .filter((p) => p.$case === "artifactUpdate")
    .map((p) => p.value.artifact.parts.map((part: Payload["value"]) => part.content.value).join(""))
    .join("");
}
