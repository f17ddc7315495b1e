import { expect, it } from "vitest";
import {
  applySessionEvent,
  emptySessionView,
  type SessionView,
  sessionViewFromHistory,
} from "../../src/client/index.js";
import { type AgentEvent, createEvent } from "../../src/event/index.js";

const fold = (events: AgentEvent[], view: SessionView = emptySessionView()) =>
  events.reduce((v, event) => applySessionEvent(v, event, v.lastEventId + 1), view);

const start = (replyId: string, source?: string) =>
  createEvent("REPLY_START", {
    replyId,
    sessionId: "s",
    name: source ? "researcher" : "main",
    role: "assistant",
    ...(source ? { source } : {}),
  });

it("a sub-agent's events fold into a sub-run tied to the tool call, not into a message of their own", () => {
  const events: AgentEvent[] = [
    start("parent"),
    createEvent("TOOL_CALL_START", { replyId: "parent", toolCallId: "call-1", toolCallName: "researcher" }),
    createEvent("SUBAGENT_EXPOSED", {
      replyId: "child",
      source: "main/researcher",
      name: "researcher",
      toolCallId: "call-1",
      parentReplyId: "parent",
    } as never),
    start("child", "main/researcher"),
    createEvent("TEXT_BLOCK_START", { replyId: "child", source: "main/researcher", blockId: "t" }),
    createEvent("TEXT_BLOCK_DELTA", {
      replyId: "child",
      source: "main/researcher",
      blockId: "t",
      delta: "found it",
    }),
    createEvent("REPLY_END", { replyId: "child", source: "main/researcher", finishedReason: "completed" }),
  ];
  const view = fold(events);
  expect(view.messages.map((m) => m.id)).toEqual(["parent"]);
  expect(view.running).toBe(true);
  expect(view.subRuns).toHaveLength(1);
  expect(view.subRuns[0]).toMatchObject({
    toolCallId: "call-1",
    source: "main/researcher",
    replyId: "child",
  });
  expect(view.subRuns[0]?.msg.content).toEqual([{ type: "text", id: "t", text: "found it" }]);
  expect(view.subRuns[0]?.msg.finishedReason).toBe("completed");
});

it("an event id at or below the last one folded changes nothing (a replayed event)", () => {
  let view = applySessionEvent(emptySessionView(), start("r"), 1);
  view = applySessionEvent(view, createEvent("TEXT_BLOCK_START", { replyId: "r", blockId: "t" }), 2);
  const once = applySessionEvent(
    view,
    createEvent("TEXT_BLOCK_DELTA", { replyId: "r", blockId: "t", delta: "x" }),
    3,
  );
  const twice = applySessionEvent(
    once,
    createEvent("TEXT_BLOCK_DELTA", { replyId: "r", blockId: "t", delta: "x" }),
    3,
  );
  expect(twice).toBe(once);
  expect(twice.messages[0]?.content).toEqual([{ type: "text", id: "t", text: "x" }]);
});

it("after a reload, a reply still running is left out of the history (it is refolded from the log)", () => {
  const stored = [
    { id: "u", name: "user", role: "user" as const, content: [], metadata: {}, createdAt: "" },
    { id: "r", name: "main", role: "assistant" as const, content: [], metadata: {}, createdAt: "" },
  ];
  const view = sessionViewFromHistory(stored, {
    sessionId: "s",
    agent: "main",
    running: true,
    replyId: "r",
    pendingToolCalls: [],
    lastEventId: 12,
    messageCount: 2,
  });
  expect(view.messages.map((m) => m.id)).toEqual(["u"]);
  expect(view).toMatchObject({ running: true, activeReplyId: "r", lastEventId: 0 });
});
