import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { caseFromSession, runCase } from "../../src/eval/index.js";
import { type AgentEvent, userConfirmResult } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import type { AgentState } from "../../src/state/index.js";
import { notesAgentOptions, notesFactory, promptFollowingModel } from "./notes-agent.js";

/** Two replies of the notes agent (each reads, asks to write a note, is approved, answers), as a service would log them. */
async function session(): Promise<{
  state: AgentState;
  events: AgentEvent[];
  replies: string[];
  paused: AgentState;
}> {
  const agent = new Agent({ ...notesAgentOptions(), model: promptFollowingModel(2) });
  const state = agent.createState("s-notes");
  const events: AgentEvent[] = [];
  let paused: AgentState | undefined;
  for (const text of ["note what todo.txt says", "and plan.txt"]) {
    let input: Parameters<Agent["replyStream"]>[0] = [userMsg(text)];
    for (;;) {
      let asked: Extract<AgentEvent, { type: "REQUIRE_USER_CONFIRM" }> | undefined;
      for await (const event of agent.replyStream(input, { state })) {
        events.push(event);
        if (event.type === "REQUIRE_USER_CONFIRM") asked = event;
      }
      if (!asked) break;
      paused ??= structuredClone(state);
      input = userConfirmResult({
        replyId: asked.replyId,
        confirmResults: asked.toolCalls.map((call) => ({ confirmed: true, toolCall: call })),
      });
    }
  }
  const replies = state.context.filter((m) => m.role === "assistant").map((m) => m.id);
  return { state, events, replies, paused: paused! };
}

describe("caseFromSession: a served session as an eval case", () => {
  it("records the whole conversation from the log (the approvals become confirmations) and replays it green", async () => {
    const { state, events } = await session();
    const recorded = caseFromSession(state, events, { id: "whole" });
    expect(recorded.input.followUps).toHaveLength(1);
    expect(recorded.input.state).toBeUndefined();
    expect(recorded.confirmations?.map((c) => [c.tool, c.confirmed])).toEqual([
      ["write_note", true],
      ["write_note", true],
    ]);
    const run = await runCase(recorded, notesFactory());
    expect(run.error).toBeUndefined();
    expect(run.divergence).toBeUndefined();
  });

  it("records one reply, starting from the session as it stood before it", async () => {
    const { state, events, replies } = await session();
    const recorded = caseFromSession(state, events, { id: "second", replyId: replies[1]! });
    expect(recorded.input.state?.context.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(recorded.input.messages.map((m) => m.content)).toEqual([
      [expect.objectContaining({ text: "and plan.txt" })],
    ]);
    expect(recorded.recording?.turns.map((t) => t.toolCalls?.map((c) => c.name) ?? [])).toEqual([
      ["read_file"],
      ["write_note"],
      [],
    ]);
    const run = await runCase(recorded, notesFactory());
    expect(run.error).toBeUndefined();
    expect(run.divergence).toBeUndefined();
  });

  it("falls back to the stored state when the log no longer holds the replies", async () => {
    const { state } = await session();
    const recorded = caseFromSession(state, [], { id: "trimmed" });
    // From the state: each turn knows the messages it saw, but there were no approval events to read.
    expect(recorded.recording?.turns).toHaveLength(6);
    expect(recorded.recording?.turns[0]?.request?.messages?.[0]).toMatchObject({ role: "user" });
    expect(recorded.confirmations).toBeUndefined();
  });

  it("refuses a paused session and names the replies when the reply asked for is not one", async () => {
    const { state, events, paused } = await session();
    expect(() => caseFromSession(paused, events, { id: "x" })).toThrow(
      /is paused \(waiting for user confirm\)/,
    );
    expect(() => caseFromSession(state, events, { id: "x", replyId: "nope" })).toThrow(
      /no reply "nope".*pick one of reply_/,
    );
  });
});
