import { type ChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { agentscopeChatTransport, ServiceError } from "../../src/client/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { gateTool, startUiChatServer, type UiChatServer } from "../app/bridges/ui-chat-fixture.js";

const servers: UiChatServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const hello: UIMessage = { id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] };

async function lastMessage(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let last: UIMessage | undefined;
  for await (const message of readUIMessageStream({ stream, terminateOnError: true })) last = message;
  return last;
}

describe("agentscopeChatTransport (agentscope/client) for useChat", () => {
  it("is a ChatTransport: UI message chunks for useChat, and the typed agent events to onEvent", async () => {
    const server = await startUiChatServer([
      { name: "helper", model: new ScriptedModel([{ text: "Hello there." }]) },
    ]);
    servers.push(server);
    const events: AgentEvent[] = [];
    const sent: Array<{ messages: unknown[] }> = [];
    const transport: ChatTransport<UIMessage> = agentscopeChatTransport({
      agent: "helper",
      baseUrl: server.base,
      token: () => "alice-token",
      onEvent: (event) => events.push(event),
      fetch: (input, init) => {
        if (typeof init?.body === "string") sent.push(JSON.parse(init.body) as { messages: unknown[] });
        return fetch(input, init);
      },
    });
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: "c1",
      messageId: undefined,
      messages: [{ id: "old", role: "assistant", parts: [{ type: "text", text: "Earlier." }] }, hello],
      abortSignal: undefined,
    });
    const message = await lastMessage(stream);
    // The session keeps the history: only the new message goes over the wire.
    expect(sent.map((body) => body.messages)).toEqual([[hello]]);
    expect(message?.parts.filter((p) => p.type === "text")).toEqual([
      expect.objectContaining({ text: "Hello there." }),
    ]);
    expect(message?.parts.some((p) => p.type === "data-agentscope-event")).toBe(false);
    expect(events[0]).toMatchObject({ type: "REPLY_START", sessionId: "c1" });
    expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "completed" });
    expect(
      events
        .filter((e) => e.type === "TEXT_BLOCK_DELTA")
        .map((e) => e.delta)
        .join(""),
    ).toBe("Hello there.");
    expect(await transport.reconnectToStream({ chatId: "c1" })).toBeNull();
  });

  it("useChat's stop (an aborted request) stops the run on the server", async () => {
    const gate = gateTool();
    const model = new ScriptedModel([
      { text: "Working.", toolCalls: [{ id: "g1", name: "wait_for_gate", input: {} }] },
    ]);
    const server = await startUiChatServer([{ name: "helper", model, toolkit: [gate.tool] }]);
    servers.push(server);
    const transport = agentscopeChatTransport({
      agent: "helper",
      baseUrl: server.base,
      token: "alice-token",
    });
    const abort = new AbortController();
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: "c2",
      messageId: undefined,
      messages: [hello],
      abortSignal: abort.signal,
    });
    const reading = lastMessage(stream).catch((error: Error) => error);
    await gate.waiting();
    abort.abort();
    expect(await reading).toBeInstanceOf(Error);
    for (let i = 0; i < 500 && (await server.runtime.status("alice", "c2")).running; i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await server.runtime.messages("alice", "c2")).at(-1)?.finishedReason).toBe("interrupted");
  });

  it("refusals are the client's ServiceError, with the status and kind; bad options fail at once", async () => {
    const server = await startUiChatServer([
      { name: "helper", model: new ScriptedModel([{ text: "Mine." }]) },
    ]);
    servers.push(server);
    const alice = agentscopeChatTransport({ agent: "helper", baseUrl: server.base, token: "alice-token" });
    await lastMessage(
      await alice.sendMessages({
        trigger: "submit-message",
        chatId: "c3",
        messageId: undefined,
        messages: [hello],
        abortSignal: undefined,
      }),
    );
    const bob = agentscopeChatTransport({ agent: "helper", baseUrl: server.base, token: "bob-token" });
    const refused = await bob.reconnectToStream({ chatId: "c3" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ status: 404, type: "not_found" });
    expect(() => agentscopeChatTransport({ agent: "helper", baseUrl: "ftp://x" })).toThrow(/baseUrl/);
    expect(() => agentscopeChatTransport({ agent: "" })).toThrow(/agent/);
  });
});
