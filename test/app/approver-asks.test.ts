import { describe, expect, it } from "vitest";
import {
  approverAsks,
  asksNamedApprovers,
  checkApproverAnswer,
} from "../../src/app/server/runtime/approver-asks.js";
import { type DecisionRecord, userConfirmResult } from "../../src/event/index.js";
import { assistantMsg, type ToolCallBlock } from "../../src/message/index.js";
import type { ApproverOptions } from "../../src/permission/index.js";
import { type AgentState, emptyAgentState } from "../../src/state/index.js";

// What a named approver may answer in a session they do not own, judged on the stored state alone.

const approvers: ApproverOptions = {
  policies: [
    { name: "deploys", tools: ["deploy"], users: ["alice"], roles: ["sre"], quorum: 2 },
    { name: "shell", rules: ["Bash(kubectl:*)"], users: ["lee"] },
    { name: "anyone", tools: ["note"] },
  ],
};

const call = (id: string, name: string, input: string, state: ToolCallBlock["state"] = "asking") =>
  ({ type: "tool_call", id, name, input, state }) as ToolCallBlock;

const record = (over: Partial<DecisionRecord>): DecisionRecord =>
  ({
    id: "d",
    createdAt: "2026-01-01T00:00:00.000Z",
    replyId: "r1",
    toolCallId: "c1",
    toolName: "deploy",
    outcome: "ask",
    input: "{}",
    mode: "default",
    actor: "engine",
    channel: "engine",
    ...over,
  }) as DecisionRecord;

function paused(calls: ToolCallBlock[], decisions: DecisionRecord[] = []): AgentState {
  const state = emptyAgentState("s1");
  state.context.push(assistantMsg(calls, { id: "r1", metadata: { decisions } }));
  state.replyContext = { replyId: "r1", iteration: 1, waitingFor: "user_confirm" };
  return state;
}

describe("approverAsks", () => {
  const state = paused(
    [
      call("c1", "deploy", '{"env":"prod"}'),
      call("c2", "Bash", '{"command":"kubectl get pods"}'),
      call("c3", "note", "{}"),
      call("c4", "deploy", '{"env":"dev"}', "allowed"),
    ],
    [
      record({ toolCallId: "c1", input: '{"env":"prod"}', expiresAt: "2030-01-01T00:00:00.000Z" }),
      record({
        toolCallId: "c1",
        outcome: "vote",
        actor: "bob",
        channel: "rest",
        policy: "deploys",
        input: '{"env":"prod"}',
      }),
      record({ toolCallId: "c2", toolName: "Bash", rule: "Bash(kubectl:*)" }),
    ],
  );

  it("offers the asking calls whose policy names the user or a role, with the votes and deadline", () => {
    expect(approverAsks(approvers, "alice", [], state)).toEqual([
      {
        sessionId: "s1",
        replyId: "r1",
        toolCallId: "c1",
        toolName: "deploy",
        input: '{"env":"prod"}',
        policy: "deploys",
        votes: 1,
        needed: 2,
        approvedByYou: false,
        expiresAt: "2030-01-01T00:00:00.000Z",
      },
    ]);
    expect(approverAsks(approvers, "bob", ["sre"], state)[0]).toMatchObject({ approvedByYou: true });
    // by the rule that asked
    expect(approverAsks(approvers, "lee", [], state).map((a) => a.toolCallId)).toEqual(["c2"]);
  });

  it("offers nothing to anyone else, under a policy naming nobody, or when no reply waits", () => {
    expect(approverAsks(approvers, "mallory", ["dev"], state)).toEqual([]);
    // "anyone" is whoever reaches the session: its owner, never another user
    expect(approverAsks(approvers, "mallory", [], state).map((a) => a.toolCallId)).not.toContain("c3");
    const ended = structuredClone(state);
    delete ended.replyContext!.waitingFor;
    expect(approverAsks(approvers, "alice", [], ended)).toEqual([]);
    expect(approverAsks(undefined, "alice", [], state)).toEqual([]);
    expect(asksNamedApprovers(approvers, ended)).toBe(false);
    expect(asksNamedApprovers(approvers, paused([call("c3", "note", "{}")]))).toBe(false);
    expect(asksNamedApprovers(approvers, state)).toBe(true);
  });
});

describe("checkApproverAnswer", () => {
  const state = paused([call("c1", "deploy", '{"env":"prod"}')]);
  const asks = approverAsks(approvers, "alice", [], state);
  const answer = (
    results: Array<{ id: string; name?: string; input?: string; rules?: string[] }>,
    replyId = "r1",
  ) =>
    userConfirmResult({
      replyId,
      confirmResults: results.map((r) => ({
        confirmed: true,
        toolCall: { id: r.id, name: r.name ?? "deploy", input: r.input ?? '{"env":"prod"}' },
        ...(r.rules ? { rules: r.rules } : {}),
      })),
    });

  it("takes an answer to the asks offered, as asked", () => {
    expect(() => checkApproverAnswer("s1", asks, answer([{ id: "c1" }]))).not.toThrow();
  });

  it.each([
    ["a call not offered", answer([{ id: "c9" }])],
    ["an offered call and another", answer([{ id: "c1" }, { id: "c9" }])],
    ["the same call twice", answer([{ id: "c1" }, { id: "c1" }])],
    ["an edited input", answer([{ id: "c1", input: '{"env":"dev"}' }])],
    ["another tool's name", answer([{ id: "c1", name: "Bash" }])],
    ["rules to remember", answer([{ id: "c1", rules: ["deploy"] }])],
    ["another reply", answer([{ id: "c1" }], "r0")],
    ["no answers", answer([])],
  ])("refuses %s as the session not found", (_what, input) => {
    expect(() => checkApproverAnswer("s1", asks, input)).toThrow('session "s1" does not exist');
  });

  it("refuses everything when nothing is offered", () => {
    expect(() => checkApproverAnswer("s1", [], answer([{ id: "c1" }]))).toThrow("does not exist");
  });
});
