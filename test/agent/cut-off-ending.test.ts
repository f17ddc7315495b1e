import { describe, expect, it } from "vitest";
import { CUT_OFF_NOTE, cutOffEnding, recoverCutOffReply } from "../../src/agent/index.js";
import { applyEvent } from "../../src/event/index.js";
import type { Msg } from "../../src/message/index.js";
import { emptyAgentState } from "../../src/state/index.js";

/** A reply cut off while one call ran (half its output streamed) and another had not started. */
function cutOffReply(): Msg {
  return {
    id: "reply_1",
    name: "a",
    role: "assistant",
    content: [
      { type: "tool_call", id: "call_done", name: "read", input: "{}", state: "finished" },
      { type: "tool_result", id: "call_done", name: "read", output: "read it", state: "success" },
      { type: "tool_call", id: "call_running", name: "write", input: "{}", state: "allowed" },
      { type: "tool_result", id: "call_running", name: "write", output: "half done", state: "running" },
      { type: "tool_call", id: "call_open", name: "write", input: "{}", state: "pending" },
    ],
    metadata: {},
    createdAt: new Date(0).toISOString(),
  };
}

describe("a reply cut off mid-run is closed by one rule, as events", () => {
  it("closes the running result and the call without one, then ends the reply interrupted", () => {
    const events = cutOffEnding(cutOffReply());
    expect(events.map((e) => `${e.type}${"toolCallId" in e ? ` ${e.toolCallId}` : ""}`)).toEqual([
      "TOOL_RESULT_TEXT_DELTA call_running",
      "TOOL_RESULT_END call_running",
      "TOOL_RESULT_START call_open",
      "TOOL_RESULT_TEXT_DELTA call_open",
      "TOOL_RESULT_END call_open",
      "REPLY_END",
    ]);
    const error = { type: "aborted" as const, message: "the server stopped" };
    expect(cutOffEnding(cutOffReply(), error).at(-1)).toMatchObject({ finishedReason: "interrupted", error });
  });

  it("the agent's recovery is those events folded by the reducer a client folds with", () => {
    const state = emptyAgentState("s");
    const msg = cutOffReply();
    state.context.push(msg);
    state.replyContext = { replyId: msg.id, iteration: 1 };
    const folded = cutOffEnding(msg).reduce((m, event) => applyEvent(m, event), structuredClone(msg));

    expect(recoverCutOffReply(state)).toBe(true);
    expect(state.replyContext).toBeUndefined();
    expect(msg).toEqual(folded);
    const results = msg.content.filter((b) => b.type === "tool_result");
    expect(results.map((r) => [r.id, r.state, r.output])).toEqual([
      ["call_done", "success", "read it"],
      ["call_running", "interrupted", `half done\n${CUT_OFF_NOTE}`],
      ["call_open", "interrupted", CUT_OFF_NOTE],
    ]);
    expect(msg.content.filter((b) => b.type === "tool_call").every((c) => c.state === "finished")).toBe(true);
    expect(msg.finishedReason).toBe("interrupted");
  });

  it("a reply that has ended gets no second end", () => {
    const msg = { ...cutOffReply(), finishedReason: "completed" as const };
    expect(cutOffEnding(msg).some((e) => e.type === "REPLY_END")).toBe(false);
  });
});
