import {
  DefaultChatTransport,
  parseJsonEventStream,
  readUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { ScriptedModel } from "../../../src/testing/index.js";
import { recordedNotes } from "../helpers.js";
import { gateTool, startUiChatServer, type UiChatServer } from "./ui-chat-fixture.js";

const servers: UiChatServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function serve(...args: Parameters<typeof startUiChatServer>) {
  const server = await startUiChatServer(...args);
  servers.push(server);
  return server;
}

/** useChat's own transport (the AI SDK's parser and chunk schema), signed in as `token`. */
function transport(server: UiChatServer, agent: string, token = "alice-token") {
  return new DefaultChatTransport({ api: server.api(agent), headers: { authorization: `Bearer ${token}` } });
}
const userMessage = (text: string, id = "u1"): UIMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text }],
});

async function readAll<T>(stream: ReadableStream<T>): Promise<T[]> {
  const items: T[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) items.push(next.value);
  return items;
}
const chunksOf = (stream: ReadableStream<UIMessageChunk>) => readAll(stream);
/** The assistant message the AI SDK folds from the chunks (continuing `message` when given). */
async function messageOf(chunks: UIMessageChunk[], message?: UIMessage): Promise<UIMessage> {
  let last: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const snapshot of readUIMessageStream({
    stream,
    terminateOnError: true,
    ...(message ? { message } : {}),
  }))
    last = snapshot;
  return last!;
}
const send = (server: UiChatServer, agent: string, chatId: string, messages: UIMessage[], token?: string) =>
  transport(server, agent, token).sendMessages({
    trigger: "submit-message",
    chatId,
    messageId: undefined,
    messages,
    abortSignal: undefined,
  });

describe("the AI SDK UI message stream, read by the ai package's own transport and reader", () => {
  it("maps text, reasoning, a tool call with its output, steps and usage onto one assistant message", async () => {
    const gate = gateTool();
    const model = new ScriptedModel([
      {
        thinking: "look it up",
        text: "Checking.",
        toolCalls: [{ id: "c1", name: "wait_for_gate", input: {} }],
        usage: { inputTokens: 10, outputTokens: 4 },
      },
      { text: "It let me through.", usage: { inputTokens: 20, outputTokens: 5 } },
    ]);
    const server = await serve([{ name: "helper", model, toolkit: [gate.tool] }]);
    const response = await fetch(server.api("helper"), {
      method: "POST",
      headers: { authorization: "Bearer alice-token", "content-type": "application/json" },
      body: JSON.stringify({ id: "chat-1", messages: [userMessage("Hi")], trigger: "submit-message" }),
    });
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    await response.body?.cancel();
    // The reply goes on server-side though that client left; the next one reads through the transport.
    await gate.waiting();
    gate.open();
    await until(async () => !(await server.runtime.status("alice", "chat-1")).running);

    model.push(
      {
        thinking: "again",
        text: "Checking.",
        toolCalls: [{ id: "c2", name: "wait_for_gate", input: {} }],
        usage: { inputTokens: 10, outputTokens: 4 },
      },
      { text: "Done.", usage: { inputTokens: 20, outputTokens: 5 } },
    );
    const stream = await send(server, "helper", "chat-1", [userMessage("Again", "u2")]);
    void gate.waiting().then(() => gate.open());
    const chunks = await chunksOf(stream);
    const types = chunks.map((c) => c.type);
    expect(types[0]).toBe("start");
    expect(types).toContain("reasoning-delta");
    expect(types.slice(-1)).toEqual(["finish"]);
    const message = await messageOf(chunks);
    const replyId = (await server.runtime.messages("alice", "chat-1")).at(-1)!.id;
    expect(message.id).toBe(replyId);
    const visible = message.parts.filter((p) => p.type !== "step-start");
    expect(visible).toEqual([
      expect.objectContaining({ type: "reasoning", text: "again", state: "done" }),
      expect.objectContaining({ type: "text", text: "Checking.", state: "done" }),
      expect.objectContaining({
        type: "dynamic-tool",
        toolName: "wait_for_gate",
        toolCallId: "c2",
        state: "output-available",
        input: {},
        output: "let through",
      }),
      expect.objectContaining({ type: "text", text: "Done.", state: "done" }),
    ]);
    expect(message.parts.filter((p) => p.type === "step-start")).toHaveLength(2);
    expect(message.metadata).toEqual({
      sessionId: "chat-1",
      replyId,
      usage: { inputTokens: 30, outputTokens: 9, totalTokens: 39 },
      status: "completed",
    });
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
  });

  it("asks for approval with tool-approval-request; the page's answer runs the call through the engine", async () => {
    const { notes, writeNote } = recordedNotes();
    const model = new ScriptedModel([
      { toolCalls: [{ id: "w1", name: "write_note", input: { text: "hello" } }] },
      { text: "Noted." },
      { toolCalls: [{ id: "w2", name: "write_note", input: { text: "secret" } }] },
      { text: "Not noted." },
    ]);
    const server = await serve([{ name: "helper", model, toolkit: [writeNote] }]);
    const asked = await chunksOf(await send(server, "helper", "chat-a", [userMessage("Note hello")]));
    expect(asked).toContainEqual(
      expect.objectContaining({ type: "tool-approval-request", approvalId: "w1", toolCallId: "w1" }),
    );
    expect(asked.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "tool-calls",
      messageMetadata: { status: "waiting" },
    });
    const pending = await messageOf(asked);
    const part = pending.parts.find((p) => p.type === "dynamic-tool");
    expect(part).toMatchObject({
      state: "approval-requested",
      approval: { id: "w1" },
      input: { text: "hello" },
    });
    expect(notes).toEqual([]);

    // What useChat sends after addToolApprovalResponse: the assistant message with the answer on its part.
    const answered = respond(pending, true);
    const resumed = await chunksOf(
      await send(server, "helper", "chat-a", [userMessage("Note hello"), answered]),
    );
    expect(resumed[0]).toMatchObject({ type: "start", messageId: pending.id });
    expect(resumed).toContainEqual({ type: "tool-approval-response", approvalId: "w1", approved: true });
    const done = await messageOf(resumed, answered);
    expect(done.parts.find((p) => p.type === "dynamic-tool")).toMatchObject({
      state: "output-available",
      output: "wrote hello",
    });
    expect(done.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)).toEqual([
      "Noted.",
    ]);
    expect(notes).toEqual(["hello"]);

    const second = await messageOf(
      await chunksOf(await send(server, "helper", "chat-a", [userMessage("Note secret", "u2")])),
    );
    const refused = await chunksOf(await send(server, "helper", "chat-a", [respond(second, false)]));
    expect(refused).toContainEqual({ type: "tool-output-denied", toolCallId: "w2" });
    expect(notes).toEqual(["hello"]);
  });

  it("resume while a reply waits for approval: replayed up to the request, which the page can answer", async () => {
    const { notes, writeNote } = recordedNotes();
    const model = new ScriptedModel([
      { text: "May I?", toolCalls: [{ id: "w1", name: "write_note", input: { text: "later" } }] },
      { text: "Done." },
    ]);
    const server = await serve([{ name: "helper", model, toolkit: [writeNote] }]);
    await chunksOf(await send(server, "helper", "chat-p", [userMessage("Note later")]));
    // The page reloads with no messages: resume rebuilds the waiting message from the log.
    const replay = await transport(server, "helper").reconnectToStream({ chatId: "chat-p" });
    const chunks = await chunksOf(replay!);
    expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "tool-calls" });
    const waiting = await messageOf(chunks);
    expect(waiting.parts.filter((p) => p.type === "text")).toEqual([
      expect.objectContaining({ text: "May I?" }),
    ]);
    expect(waiting.parts.find((p) => p.type === "dynamic-tool")).toMatchObject({
      state: "approval-requested",
    });
    const done = await chunksOf(await send(server, "helper", "chat-p", [respond(waiting, true)]));
    expect(done.at(-1)).toMatchObject({ type: "finish", finishReason: "stop" });
    expect(notes).toEqual(["later"]);
  });

  it("resume: the running reply is replayed from its start, then followed live; 204 when none runs", async () => {
    const gate = gateTool();
    const model = new ScriptedModel([
      { text: "Part one.", toolCalls: [{ id: "g1", name: "wait_for_gate", input: {} }] },
      { text: "Part two." },
    ]);
    const server = await serve([{ name: "helper", model, toolkit: [gate.tool] }]);
    const first = await send(server, "helper", "chat-r", [userMessage("Go")]);
    await gate.waiting();
    await first.cancel(); // the page reloads: its stream is gone, the reply is not
    const again = await transport(server, "helper").reconnectToStream({ chatId: "chat-r" });
    expect(again).not.toBeNull();
    const reader = again!.getReader();
    const replayed: UIMessageChunk[] = [];
    while (!replayed.some((c) => c.type === "tool-input-available"))
      replayed.push((await reader.read()).value!);
    gate.open();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      replayed.push(value);
    }
    const message = await messageOf(replayed);
    const texts = message.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text);
    expect(texts).toEqual(["Part one.", "Part two."]);
    expect(replayed.filter((c) => c.type === "start")).toHaveLength(1);
    expect(message.parts.find((p) => p.type === "dynamic-tool")).toMatchObject({ state: "output-available" });
    expect(await transport(server, "helper").reconnectToStream({ chatId: "chat-r" })).toBeNull();
  });

  it("stop interrupts the run on the server, not only the connection", async () => {
    const gate = gateTool();
    const model = new ScriptedModel([
      { text: "Working.", toolCalls: [{ id: "g1", name: "wait_for_gate", input: {} }] },
    ]);
    const server = await serve([{ name: "helper", model, toolkit: [gate.tool] }]);
    const stream = await send(server, "helper", "chat-s", [userMessage("Go")]);
    const reading = chunksOf(stream);
    await gate.waiting();
    const stop = await fetch(`${server.api("helper")}/chat-s/stop`, {
      method: "POST",
      headers: { authorization: "Bearer alice-token" },
    });
    expect(stop.status).toBe(202);
    expect(await stop.json()).toMatchObject({ was: "running" });
    const chunks = await reading;
    expect(chunks.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "interrupted",
      messageMetadata: { status: "interrupted" },
    });
    expect(chunks).toContainEqual(expect.objectContaining({ type: "tool-output-error", toolCallId: "g1" }));
    expect((await server.runtime.status("alice", "chat-s")).running).toBe(false);
    expect((await server.runtime.messages("alice", "chat-s")).at(-1)?.finishedReason).toBe("interrupted");
    const idle = await fetch(`${server.api("helper")}/chat-s/stop`, {
      method: "POST",
      headers: { authorization: "Bearer alice-token" },
    });
    expect(await idle.json()).toEqual({ was: "idle" });
  });

  it("a chat id is a session of the caller's: another user's token gets 404 on every route", async () => {
    const server = await serve([{ name: "helper", model: new ScriptedModel([{ text: "Mine." }]) }]);
    await chunksOf(await send(server, "helper", "chat-i", [userMessage("Hi")]));
    await expect(send(server, "helper", "chat-i", [userMessage("Hi")], "bob-token")).rejects.toThrow(
      /does not exist/,
    );
    const bob = { authorization: "Bearer bob-token" };
    expect((await fetch(`${server.api("helper")}/chat-i/stream`, { headers: bob })).status).toBe(404);
    expect(
      (await fetch(`${server.api("helper")}/chat-i/stop`, { method: "POST", headers: bob })).status,
    ).toBe(404);
    expect((await fetch(`${server.api("helper")}/chat-i/stream`)).status).toBe(401);
    expect((await server.runtime.listSessions("bob")).sessions).toEqual([]);
  });

  it("refuses what it cannot serve with a 400 that says why", async () => {
    const server = await serve([
      { name: "helper", model: new ScriptedModel([{ text: "Hi." }]) },
      { name: "other", model: new ScriptedModel([{ text: "Hi." }]) },
    ]);
    const post = (body: unknown, agent = "helper") =>
      fetch(server.api(agent), {
        method: "POST",
        headers: { authorization: "Bearer alice-token", "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(async (r) => ({
        status: r.status,
        text: ((await r.json()) as { error: { message: string } }).error.message,
      }));
    expect(
      await post({ id: "x", messages: [userMessage("Hi")], trigger: "regenerate-message" }),
    ).toMatchObject({
      status: 400,
      text: expect.stringContaining("regenerate-message is not supported"),
    });
    expect(await post({ id: "x", messages: [] })).toMatchObject({
      status: 400,
      text: expect.stringContaining("messages"),
    });
    expect(
      await post({
        id: "x",
        messages: [{ id: "a", role: "assistant", parts: [{ type: "text", text: "?" }] }],
      }),
    ).toMatchObject({ status: 400, text: expect.stringContaining("approval-responded") });
    expect(await post({ id: "x", messages: [userMessage("Hi")] }, "nobody")).toMatchObject({
      status: 404,
      text: expect.stringContaining("have: helper, other"),
    });
    await chunksOf(await send(server, "helper", "chat-o", [userMessage("Hi")]));
    expect(await post({ id: "chat-o", messages: [userMessage("Hi")] }, "other")).toMatchObject({
      status: 400,
      text: expect.stringContaining('talks to agent "helper"'),
    });
  });

  it("a failed reply ends with an error chunk (the AI SDK raises it) and finish error", async () => {
    const model = new ScriptedModel([{ error: { type: "upstream", message: "the model is down" } }]);
    const server = await serve([{ name: "helper", model }]);
    const chunks = await chunksOf(await send(server, "helper", "chat-e", [userMessage("Hi")]));
    expect(chunks).toContainEqual({ type: "error", errorText: expect.stringContaining("the model is down") });
    expect(chunks.at(-1)).toMatchObject({
      type: "finish",
      finishReason: "error",
      messageMetadata: { status: "error" },
    });
    await expect(messageOf(chunks)).rejects.toThrow(/the model is down/);
  });

  it("x-agentscope-events: 1 adds every agent event as a transient data-agentscope-event chunk", async () => {
    const server = await serve([{ name: "helper", model: new ScriptedModel([{ text: "Hi." }]) }]);
    const response = await fetch(server.api("helper"), {
      method: "POST",
      headers: {
        authorization: "Bearer alice-token",
        "content-type": "application/json",
        "x-agentscope-events": "1",
      },
      body: JSON.stringify({ id: "chat-t", messages: [userMessage("Hi")] }),
    });
    // The ai package's own SSE parser and chunk schema, as useChat's transport reads a response.
    const parsed = parseJsonEventStream({ stream: response.body!, schema: uiMessageChunkSchema });
    const chunks = (await readAll(parsed)).map((result) => {
      if (!result.success) throw result.error;
      return result.value;
    });
    const events = chunks.filter((c) => c.type === "data-agentscope-event") as Array<{
      data: { type: string };
      transient?: boolean;
    }>;
    expect(events.map((e) => e.data.type)).toEqual(
      expect.arrayContaining(["REPLY_START", "TEXT_BLOCK_DELTA", "MODEL_CALL_END", "REPLY_END"]),
    );
    expect(events.every((e) => e.transient)).toBe(true);
    const message = await messageOf(chunks);
    expect(message.parts.some((p) => p.type === "data-agentscope-event")).toBe(false);
  });
});

function respond(message: UIMessage, approved: boolean): UIMessage {
  return {
    ...message,
    parts: message.parts.map((part) =>
      part.type === "dynamic-tool" && part.state === "approval-requested"
        ? { ...part, state: "approval-responded", approval: { id: part.approval.id, approved } }
        : part,
    ),
  };
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}
