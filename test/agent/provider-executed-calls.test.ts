import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, recoverCutOffReply } from "../../src/agent/index.js";
import {
  type AgentEvent,
  foldEvents,
  type RequireUserConfirmEvent,
  userConfirmResult,
} from "../../src/event/index.js";
import {
  type ContentBlock,
  type Msg,
  newId,
  parseMsg,
  type ToolCallBlock,
  userMsg,
} from "../../src/message/index.js";
import { estimateTokens } from "../../src/model/estimate-tokens.js";
import { providerCall, providerResult } from "../../src/model/provider-kit/provider-runs.js";
import type { ChatChunk, ChatFinal, ChatModel } from "../../src/model/types.js";
import { emptyAgentState, InMemoryStateStore } from "../../src/state/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect } from "./helpers.js";

/**
 * A built-in tool run of the provider (`executedBy: "provider"`) is part of the reply, never the
 * agent's work: it is not run, not permission-checked, not waited on, not closed as interrupted,
 * even when a local tool of the same name exists or the provider left it without a result.
 */

const SEARCH_DATA = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } };
const RESULT_DATA = { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] };
const search = () => providerCall("anthropic", "srvtoolu_1", "web_search", '{"query":"q"}', SEARCH_DATA);
const searchResult = () =>
  providerResult("anthropic", "srvtoolu_1", "web_search", "- A — https://a.example", false, RESULT_DATA);

/** A model whose turns are final contents: text blocks stream as deltas, the rest arrive only in the final chunk. */
class TurnsModel implements ChatModel {
  readonly name = "turns";
  readonly provider = "anthropic";
  readonly contextSize = 100_000;
  readonly calls: Msg[][] = [];
  constructor(private readonly turns: Array<() => ChatFinal["content"]>) {}

  async *stream(messages: Msg[]): AsyncIterable<ChatChunk> {
    this.calls.push(structuredClone(messages));
    const content = this.turns[this.calls.length - 1]?.() ?? [{ type: "text", id: newId("t"), text: "ok" }];
    for (const block of content)
      if (block.type === "text") yield { type: "text", blockId: block.id, delta: block.text };
    const local = content.some((b) => b.type === "tool_call" && b.executedBy === undefined);
    yield {
      type: "final",
      content,
      usage: { inputTokens: 1, outputTokens: 1 },
      stopReason: local ? "tool_calls" : "stop",
    };
  }

  countTokens(messages: Msg[]): number {
    return estimateTokens(messages);
  }
}

const text = (value: string) => ({ type: "text" as const, id: newId("t"), text: value });

/** A local tool with the built-in's name that asks before running: it must never run or ask. */
function localSearch(runs: string[]) {
  return functionTool({
    name: "web_search",
    description: "Local search",
    input: z.object({ query: z.string() }),
    execute: ({ query }) => {
      runs.push(query);
      return "local";
    },
  });
}

function writer(log: string[]) {
  return functionTool({
    name: "write_note",
    description: "Writes a note",
    input: z.object({ text: z.string() }),
    execute: ({ text }) => {
      log.push(text);
      return `wrote ${text}`;
    },
  });
}

const kinds = (msg: Msg) =>
  msg.content.map((b: ContentBlock) =>
    b.type === "tool_call" || b.type === "tool_result"
      ? `${b.type}:${b.name}${b.executedBy ? "@provider" : ""}`
      : b.type,
  );

describe("provider-executed tool calls in the agent loop", () => {
  it("are kept in the provider's order and never run, asked or awaited", async () => {
    const runs: string[] = [];
    const model = new TurnsModel([() => [search(), searchResult(), text("It is A.")]]);
    const agent = new Agent({ name: "a", model, toolkit: [localSearch(runs)] });
    const events = await collect(agent.replyStream(userMsg("search")));
    const stored = agent.state.context.at(-1)!;

    expect(runs).toEqual([]);
    expect(events.some((e) => e.type === "REQUIRE_USER_CONFIRM")).toBe(false);
    expect(model.calls).toHaveLength(1);
    expect(stored.finishedReason).toBe("completed");
    expect(kinds(stored)).toEqual([
      "tool_call:web_search@provider",
      "tool_result:web_search@provider",
      "text",
    ]);
    expect(stored.content[0]).toMatchObject({
      state: "finished",
      provider: "anthropic",
      providerData: SEARCH_DATA,
    });
    expect(stored.content[1]).toMatchObject({
      state: "success",
      output: "- A — https://a.example",
      providerData: RESULT_DATA,
    });
    expect(foldEvents(events)).toEqual(stored); // the events alone rebuild it, provider fields included
    expect(parseMsg(JSON.parse(JSON.stringify(stored)))).toEqual(stored);
  });

  it("a call the provider left without a result is not pending: the reply ends, nothing is added", async () => {
    const runs: string[] = [];
    const model = new TurnsModel([() => [search(), text("Searching…")], () => [text("Done.")]]);
    const agent = new Agent({ name: "a", model, toolkit: [localSearch(runs)] });
    const first = await agent.reply(userMsg("search"));
    expect(first.finishedReason).toBe("completed");
    expect(kinds(first)).toEqual(["tool_call:web_search@provider", "text"]);
    expect(runs).toEqual([]);

    await agent.reply(userMsg("more"));
    // The next model call sees the run exactly as it was: no synthetic or interrupted result.
    const seen = model.calls[1]!.find((m) => m.id === first.id)!;
    expect(seen.content).toEqual(first.content);
  });

  it("a cut-off reply is repaired around them: only the agent's own call is closed as interrupted", () => {
    const own: ToolCallBlock = {
      type: "tool_call",
      id: "call_1",
      name: "write_note",
      input: "{}",
      state: "allowed",
    };
    const msg: Msg = {
      id: "reply_1",
      name: "a",
      role: "assistant",
      content: [search(), own],
      metadata: {},
      createdAt: new Date().toISOString(),
    };
    const state = {
      ...emptyAgentState("s"),
      context: [msg],
      replyContext: { replyId: "reply_1", iteration: 1 },
    };
    const agent = new Agent({ name: "a", model: new TurnsModel([]), state });
    expect(recoverCutOffReply(agent.state)).toBe(true);
    expect(kinds(msg)).toEqual([
      "tool_call:web_search@provider",
      "tool_call:write_note",
      "tool_result:write_note",
    ]);
    expect(msg.content[0]).toMatchObject({ state: "finished", providerData: SEARCH_DATA });
  });

  it("a pause beside them survives a state store round trip; the resumed reply answers only the agent's call", async () => {
    const log: string[] = [];
    const runs: string[] = [];
    const turns = [
      () => [
        search(),
        searchResult(),
        providerCall("anthropic", "srvtoolu_2", "web_search", "{}", undefined),
        text("Noting."),
        {
          type: "tool_call" as const,
          id: "call_note",
          name: "write_note",
          input: '{"text":"A"}',
          state: "pending" as const,
        },
      ],
      () => [text("Noted.")],
    ];
    const store = new InMemoryStateStore();
    const first = new Agent({
      name: "a",
      model: new TurnsModel(turns),
      toolkit: [writer(log), localSearch(runs)],
    });
    const events = await collect(first.replyStream(userMsg("search and note")));
    const ask = events.find((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM")!;
    expect(ask.toolCalls.map((c) => c.id)).toEqual(["call_note"]); // the provider's calls are never asked
    const sessionId = first.state.sessionId;
    await store.save(sessionId, first.state, { expectedVersion: 0 });

    const loaded = (await store.load(sessionId))!.state;
    const model = new TurnsModel([turns[1]!]);
    const second = new Agent({ name: "a", model, toolkit: [writer(log), localSearch(runs)], state: loaded });
    const paused = second.state.context.at(-1)!;
    expect(paused.content.slice(0, 3)).toEqual(first.state.context.at(-1)!.content.slice(0, 3));

    // An answer for a provider call is refused: it is not waiting for anything.
    const forProvider = userConfirmResult({
      replyId: ask.replyId,
      confirmResults: [{ confirmed: true, toolCall: { id: "srvtoolu_2", name: "web_search", input: "{}" } }],
    });
    await expect(second.reply(forProvider)).rejects.toThrow(/srvtoolu_2/);

    const resumed: AgentEvent[] = await collect(
      second.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [{ confirmed: true, toolCall: ask.toolCalls[0]! }],
        }),
      ),
    );
    const reply = second.state.context.at(-1)!;
    expect(resumed.at(-1)?.type).toBe("REPLY_END");
    expect(log).toEqual(["A"]);
    expect(runs).toEqual([]);
    expect(kinds(reply)).toEqual([
      "tool_call:web_search@provider",
      "tool_result:web_search@provider",
      "tool_call:web_search@provider",
      "text",
      "tool_call:write_note",
      "tool_result:write_note",
      "text",
    ]);
    expect(reply.content.filter((b) => b.type === "tool_result" && b.id === "srvtoolu_2")).toEqual([]);
  });
});
