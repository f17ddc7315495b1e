import { describe, expect, it } from "vitest";
import {
  applyEvent,
  applyEventInPlace,
  createEvent,
  foldEvents,
  replyMsgFromStart,
} from "../../src/event/index.js";

const R = "reply_1";
const start = createEvent("REPLY_START", { replyId: R, sessionId: "s", name: "bot", role: "assistant" });
const wireCall = { type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "q" } };
const wireResult = { type: "web_search_tool_result", tool_use_id: "srv_1", content: [] };

/** A text that streamed, then a provider's run that arrived whole and goes before it. */
const events = [
  start,
  createEvent("TEXT_BLOCK_START", { replyId: R, blockId: "t1" }),
  createEvent("TEXT_BLOCK_DELTA", { replyId: R, blockId: "t1", delta: "Found it." }),
  createEvent("TOOL_CALL_START", {
    replyId: R,
    toolCallId: "srv_1",
    toolCallName: "web_search",
    executedBy: "provider",
    provider: "anthropic",
    beforeBlockId: "t1",
  }),
  createEvent("TOOL_CALL_DELTA", { replyId: R, toolCallId: "srv_1", delta: '{"query":"q"}' }),
  createEvent("TOOL_CALL_END", { replyId: R, toolCallId: "srv_1", providerData: wireCall }),
  createEvent("TOOL_RESULT_START", {
    replyId: R,
    toolCallId: "srv_1",
    toolCallName: "web_search",
    executedBy: "provider",
    provider: "anthropic",
    beforeBlockId: "t1",
  }),
  createEvent("TOOL_RESULT_TEXT_DELTA", {
    replyId: R,
    toolCallId: "srv_1",
    delta: "- A — https://a.example",
  }),
  createEvent("TOOL_RESULT_END", {
    replyId: R,
    toolCallId: "srv_1",
    state: "success",
    providerData: wireResult,
  }),
  createEvent("TEXT_BLOCK_END", { replyId: R, blockId: "t1" }),
];

describe("provider-executed runs in the event fold", () => {
  it("fold into a finished call and its result, with provider and wire data, before the block named", () => {
    const msg = foldEvents(events)!;
    expect(msg.content).toEqual([
      {
        type: "tool_call",
        id: "srv_1",
        name: "web_search",
        input: '{"query":"q"}',
        state: "finished",
        executedBy: "provider",
        provider: "anthropic",
        providerData: wireCall,
      },
      {
        type: "tool_result",
        id: "srv_1",
        name: "web_search",
        output: "- A — https://a.example",
        state: "success",
        executedBy: "provider",
        provider: "anthropic",
        providerData: wireResult,
      },
      { type: "text", id: "t1", text: "Found it." },
    ]);
  });

  it("the copying fold and the in-place fold agree", () => {
    const inPlace = replyMsgFromStart(start);
    for (const event of events.slice(1)) applyEventInPlace(inPlace, event);
    let copied = applyEvent(undefined, start)!;
    for (const event of events.slice(1)) copied = applyEvent(copied, event);
    expect(copied).toEqual(inPlace);
  });
});
