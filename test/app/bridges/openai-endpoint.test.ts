import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { openaiRoutes } from "../../../src/app/bridges/index.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { textOf } from "../../../src/message/index.js";
import { ScriptedModel, type ScriptedStep } from "../../../src/testing/index.js";
import { functionTool } from "../../../src/tool/index.js";
import { recordedNotes } from "../helpers.js";

const weather = functionTool({
  name: "get_weather",
  description: "Weather for a city",
  input: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `sunny in ${city}`,
});

const TOKENS = new Map([
  ["alice-token", "alice"],
  ["bob-token", "bob"],
]);

interface Server {
  base: string;
  runtime: ServiceRuntime;
  notes: string[];
  client(token?: string): OpenAI;
  close(): Promise<void>;
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(steps: ScriptedStep[]): Promise<Server> {
  const { notes, writeNote } = recordedNotes();
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [
      { name: "helper", model: new ScriptedModel(steps), toolkit: [weather, writeNote] },
      { name: "writer", model: new ScriptedModel([{ text: "unused" }]) },
    ],
    heartbeatMs: 20,
  });
  const app = createApp(runtime, { mounts: [openaiRoutes(runtime)], tokens: TOKENS });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const handle: Server = {
    base,
    runtime,
    notes,
    client: (token = "alice-token") =>
      new OpenAI({ apiKey: token, baseURL: `${base}/v1/openai`, maxRetries: 0 }),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
  servers.push(handle);
  return handle;
}

const toolThenAnswer: ScriptedStep[] = [
  {
    text: "Checking.",
    toolCalls: [{ id: "c1", name: "get_weather", input: { city: "Paris" } }],
    usage: { inputTokens: 10, outputTokens: 4 },
  },
  { thinking: "it is sunny", text: "Sunny in Paris.", usage: { inputTokens: 20, outputTokens: 5 } },
];

describe("the OpenAI-compatible endpoint with the openai npm client", () => {
  it("lists each agent as a model", async () => {
    const server = await start([{ text: "hi" }]);
    const models = await server.client().models.list();
    expect(models.data.map((m) => m.id)).toEqual(["helper", "writer"]);
    expect(await server.client().models.retrieve("writer")).toMatchObject({
      id: "writer",
      owned_by: "agentscope",
    });
    await expect(server.client().models.retrieve("nobody")).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("answers a non-streamed completion: the agent's tool ran server-side, usage sums every model call", async () => {
    const server = await start(toolThenAnswer);
    const { data, response } = await server
      .client()
      .chat.completions.create({
        model: "helper",
        messages: [{ role: "user", content: "Weather in Paris?" }],
      })
      .withResponse();
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe("helper");
    expect(data.choices[0]?.message.content).toBe("Checking.\nSunny in Paris.");
    expect(data.choices[0]?.finish_reason).toBe("stop");
    expect(data.choices[0]?.message.tool_calls).toBeUndefined();
    expect(data.usage).toEqual({ prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 });

    // The completion is a reply in a session of alice's: the tool result is in its history.
    const sessionId = response.headers.get("x-agentscope-session-id")!;
    expect((data as unknown as { agentscope: unknown }).agentscope).toMatchObject({
      session_id: sessionId,
      status: "completed",
    });
    const history = await server.runtime.messages("alice", sessionId);
    const reply = history.at(-1)!;
    expect(textOf(reply)).toBe("Checking.\nSunny in Paris.");
    expect(reply.content).toContainEqual(
      expect.objectContaining({ type: "tool_result", output: "sunny in Paris" }),
    );
    expect(data.id).toBe(`chatcmpl-${reply.id}`);
    await expect(server.runtime.messages("bob", sessionId)).rejects.toThrow(/does not exist/);
  });

  it("streams a completion: text and reasoning deltas, the finish reason, then usage", async () => {
    const server = await start(toolThenAnswer);
    const stream = await server.client().chat.completions.create({
      model: "helper",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = "";
    let reasoning = "";
    const finishes: Array<string | null | undefined> = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      const delta = chunk.choices[0]?.delta as { content?: string; reasoning_content?: string } | undefined;
      content += delta?.content ?? "";
      reasoning += delta?.reasoning_content ?? "";
      if (chunk.choices[0]?.finish_reason) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(chunks).toBeGreaterThan(4);
    expect(content).toBe("Checking.\nSunny in Paris.");
    expect(reasoning).toBe("it is sunny");
    expect(finishes).toEqual(["stop"]);
    expect(usage).toEqual({ prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 });
  });

  it("continues a session: only the new user message is input, the agent keeps its own history", async () => {
    const seen: string[][] = [];
    const server = await start([
      { text: "Noted." },
      (messages) => {
        seen.push(messages.map((m) => textOf(m)).filter((text) => text !== ""));
        return { text: "You said hello." };
      },
    ]);
    const first = await server
      .client()
      .chat.completions.create({ model: "helper", messages: [{ role: "user", content: "hello" }] })
      .withResponse();
    const sessionId = first.response.headers.get("x-agentscope-session-id")!;
    const second = await server.client().chat.completions.create(
      {
        model: "helper",
        messages: [
          { role: "user", content: "hello" },
          { role: "assistant", content: "Noted." },
          { role: "user", content: "what did I say?" },
        ],
      },
      { headers: { "x-agentscope-session-id": sessionId } },
    );
    expect(second.choices[0]?.message.content).toBe("You said hello.");
    expect(seen).toEqual([["hello", "Noted.", "what did I say?"]]);
    expect((await server.runtime.messages("alice", sessionId)).length).toBe(4);
    // Another user cannot continue alice's session, nor tell that it exists.
    await expect(
      server
        .client("bob-token")
        .chat.completions.create(
          { model: "helper", messages: [{ role: "user", content: "hi" }] },
          { headers: { "x-agentscope-session-id": sessionId } },
        ),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it("a reply that waits for approval says so in the message and names the ids; the service's confirm answers it", async () => {
    const server = await start([
      { toolCalls: [{ id: "w1", name: "write_note", input: { text: "buy milk" } }] },
      { text: "Saved your note." },
    ]);
    const { data, response } = await server
      .client()
      .chat.completions.create({ model: "helper", messages: [{ role: "user", content: "Note: buy milk" }] })
      .withResponse();
    const sessionId = response.headers.get("x-agentscope-session-id")!;
    expect(response.headers.get("x-agentscope-pending-tool-calls")).toBe("w1");
    const content = data.choices[0]?.message.content ?? "";
    expect(content).toContain('write_note({"text":"buy milk"}) [tool call w1]');
    expect(content).toContain(`POST /v1/sessions/${sessionId}/confirm`);
    expect((data as unknown as { agentscope: unknown }).agentscope).toEqual({
      session_id: sessionId,
      reply_id: expect.any(String),
      status: "waiting",
      pending: [
        {
          tool_call_id: "w1",
          tool_name: "write_note",
          input: '{"text":"buy milk"}',
          kind: "confirm",
          reason: "default mode asks before write_note runs",
          suggested_rules: ["write_note"],
        },
      ],
    });
    expect(server.notes).toEqual([]);

    const confirm = await fetch(`${server.base}/v1/sessions/${sessionId}/confirm`, {
      method: "POST",
      headers: {
        authorization: "Bearer alice-token",
        "content-type": "application/json",
        accept: "text/event-stream",
      },
      body: JSON.stringify({ answers: [{ toolCallId: "w1", confirmed: true }] }),
    });
    expect(confirm.status).toBe(200);
    await confirm.text(); // the resumed reply, to its end
    expect(server.notes).toEqual(["buy milk"]);
    expect(textOf((await server.runtime.messages("alice", sessionId)).at(-1)!)).toBe("Saved your note.");
  });

  it("streams the approval text and the extension field in the last chunk", async () => {
    const server = await start([{ toolCalls: [{ id: "w2", name: "write_note", input: { text: "x" } }] }]);
    const stream = await server.client().chat.completions.create({
      model: "helper",
      messages: [{ role: "user", content: "note x" }],
      stream: true,
    });
    let content = "";
    let extension: unknown;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? "";
      const extra = (chunk as unknown as { agentscope?: unknown }).agentscope;
      if (extra) extension = extra;
    }
    expect(content).toContain("[tool call w2]");
    expect(extension).toMatchObject({
      status: "waiting",
      pending: [{ tool_call_id: "w2", kind: "confirm" }],
    });
  });

  it("a failed reply raises an APIError: non-streamed as a 500, streamed as an error frame", async () => {
    const failing = { error: { type: "upstream" as const, message: "the provider is down" } };
    const server = await start([failing, failing]);
    const messages = [{ role: "user" as const, content: "hi" }];
    await expect(server.client().chat.completions.create({ model: "helper", messages })).rejects.toThrow(
      /the provider is down/,
    );
    const stream = await server.client().chat.completions.create({ model: "helper", messages, stream: true });
    await expect(
      (async () => {
        for await (const _ of stream) {
          // drain
        }
      })(),
    ).rejects.toThrow(/the provider is down/);
  });

  it("refuses what it cannot honour with the client's error classes", async () => {
    const server = await start([{ text: "hi" }]);
    const messages = [{ role: "user" as const, content: "hi" }];
    await expect(server.client().chat.completions.create({ model: "nobody", messages })).rejects.toThrow(
      /model "nobody": no agent of that name \(have: helper, writer\)/,
    );
    await expect(
      server.client().chat.completions.create({
        model: "helper",
        messages,
        tools: [{ type: "function", function: { name: "f", parameters: {} } }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(
      server
        .client()
        .chat.completions.create({ model: "helper", messages: [{ role: "system", content: "x" }] }),
    ).rejects.toThrow(/the last message with content must be from the user/);
    await expect(server.client("wrong-token").models.list()).rejects.toBeInstanceOf(
      OpenAI.AuthenticationError,
    );
  });
});
