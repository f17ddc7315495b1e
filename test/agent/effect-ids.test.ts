import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, OUTCOME_UNKNOWN_NOTE, recoverCutOffReply, retryAnswer } from "../../src/agent/index.js";
import { decisionsOf, userConfirmResult } from "../../src/event/index.js";
import { type ToolCallBlock, type ToolResultBlock, userMsg } from "../../src/message/index.js";
import { type AgentState, parseAgentState } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";

/** A refund tool that logs the key it got; with `hang`, its first run never returns (the process "dies"). */
function refunder(keys: string[], options: { idempotent?: boolean; hang?: boolean } = {}) {
  return functionTool({
    name: "refund",
    description: "Refunds an order",
    input: z.object({ order: z.string() }),
    idempotent: options.idempotent ?? false,
    execute: ({ order }, ctx) => {
      keys.push(ctx.idempotencyKey!);
      if (options.hang && keys.length === 1) return new Promise<string>(() => {});
      return `refunded ${order}`;
    },
  });
}

/**
 * Runs a reply until its refund starts and returns the state as the `tool_start` checkpoint saved it
 * (what a store holds when the process is killed while the tool runs).
 */
async function crashWhileRefunding(idempotent: boolean): Promise<{ saved: AgentState; keys: string[] }> {
  const keys: string[] = [];
  let saved: string | undefined;
  let started!: () => void;
  const startedRefund = new Promise<void>((resolve) => {
    started = resolve;
  });
  const agent = new Agent({
    name: "support",
    model: new ScriptedModel([{ toolCalls: [{ name: "refund", input: { order: "A1" } }] }]),
    toolkit: [refunder(keys, { idempotent, hang: true })],
    permission: { mode: "bypass" },
    checkpoint: (state, reason) => {
      if (reason !== "tool_start") return;
      saved = JSON.stringify(state);
      started();
    },
  });
  void agent.reply(userMsg("refund A1"));
  await startedRefund;
  await new Promise((resolve) => setImmediate(resolve));
  return { saved: parseAgentState(saved!), keys };
}

/** The agent of the "next process": same tool, a model that says what happened. */
function restarted(state: AgentState, keys: string[], idempotent: boolean) {
  return new Agent({
    name: "support",
    model: new ScriptedModel([{ text: "Done." }]),
    toolkit: [refunder(keys, { idempotent })],
    permission: { mode: "bypass" },
    state,
  });
}

const last = (state: AgentState) => state.context.at(-1)!;
const calls = (state: AgentState) =>
  last(state).content.filter((b): b is ToolCallBlock => b.type === "tool_call");
const results = (state: AgentState) =>
  last(state).content.filter((b): b is ToolResultBlock => b.type === "tool_result");

describe("effect ids: a tool's work is one effect across crashes", () => {
  it("stores the effect id with the state before the tool starts, and hands it to the tool", async () => {
    const { saved, keys } = await crashWhileRefunding(false);
    const callId = calls(saved)[0]!.id;
    expect(keys).toHaveLength(1);
    expect(saved.replyContext?.effects?.[callId]?.key).toBe(keys[0]);
    expect(results(saved)[0]).toMatchObject({ id: callId, state: "running" });
  });

  it("a call cut off while it ran is asked about again, not closed as interrupted; approving runs it with the same key", async () => {
    const { saved, keys } = await crashWhileRefunding(false);
    const agent = restarted(saved, keys, false);
    expect(recoverCutOffReply(agent.state)).toBe(true);
    const reply = agent.state.replyContext!;
    expect(reply.waitingFor).toBe("user_confirm");
    const [first, retry] = calls(agent.state);
    expect(results(agent.state)[0]).toMatchObject({ id: first!.id, state: "interrupted" });
    expect(JSON.stringify(results(agent.state)[0]!.output)).toContain("outcome unknown");
    expect(retry).toMatchObject({ name: "refund", input: first!.input, state: "asking" });
    const record = decisionsOf(agent.state.context).find((r) => r.outcome === "outcome_unknown");
    expect(record).toMatchObject({ toolCallId: first!.id, resolution: "ask", retryCallId: retry!.id });
    expect(record!.reason).toContain("is unknown");
    // Nothing runs unasked: the runtime gives no answer for a tool that is not idempotent.
    expect(retryAnswer(agent.state)).toBeUndefined();
    await expect(agent.reply(userMsg("and now?"))).rejects.toThrow(/waiting for a confirmation/);
    expect(keys).toHaveLength(1);

    const msg = await agent.reply(
      userConfirmResult({
        replyId: reply.replyId,
        confirmResults: [{ confirmed: true, toolCall: retry! }],
      }),
    );
    expect(msg.finishedReason).toBe("completed");
    expect(keys).toEqual([keys[0], keys[0]]);
    expect(results(agent.state).map((r) => r.state)).toEqual(["interrupted", "success"]);
  });

  it("refusing the retry leaves the effect as it was: the tool does not run again", async () => {
    const { saved, keys } = await crashWhileRefunding(false);
    const agent = restarted(saved, keys, false);
    recoverCutOffReply(agent.state);
    const retry = calls(agent.state)[1]!;
    const msg = await agent.reply(
      userConfirmResult({
        replyId: agent.state.replyContext!.replyId,
        confirmResults: [{ confirmed: false, toolCall: retry, reason: "it went through" }],
      }),
    );
    expect(msg.finishedReason).toBe("completed");
    expect(keys).toHaveLength(1);
    expect(results(agent.state).map((r) => r.state)).toEqual(["interrupted", "denied"]);
  });

  it("an idempotent tool is run again by the runtime with the same key, and the record says so", async () => {
    const { saved, keys } = await crashWhileRefunding(true);
    const agent = restarted(saved, keys, true);
    recoverCutOffReply(agent.state);
    const record = decisionsOf(agent.state.context).find((r) => r.outcome === "outcome_unknown");
    expect(record).toMatchObject({ resolution: "retry" });
    const answer = retryAnswer(agent.state);
    expect(answer?.answeredBy).toEqual({ name: "runtime", channel: "engine" });
    const msg = await agent.reply(answer!);
    expect(msg.finishedReason).toBe("completed");
    expect(keys).toEqual([keys[0], keys[0]]);
    const approve = decisionsOf(agent.state.context).find((r) => r.outcome === "approve");
    expect(approve).toMatchObject({ actor: "runtime", channel: "engine", toolCallId: record!.retryCallId });
  });

  it("a read-only tool stores nothing and is closed as before (it is never run again)", async () => {
    const keys: string[] = [];
    let saves = 0;
    const agent = new Agent({
      name: "a",
      model: new ScriptedModel([{ toolCalls: [{ name: "look", input: {} }] }, { text: "ok" }]),
      toolkit: [
        functionTool({
          name: "look",
          description: "Looks",
          input: z.object({}),
          readOnly: true,
          execute: (_input, ctx) => {
            keys.push(ctx.idempotencyKey!);
            return "seen";
          },
        }),
      ],
      checkpoint: (_state, reason) => {
        if (reason === "tool_start") saves += 1;
      },
    });
    await agent.reply(userMsg("look"));
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^effect/);
    expect(saves).toBe(0);
    expect(
      agent.state.context.at(-1)?.content.some((b) => JSON.stringify(b).includes(OUTCOME_UNKNOWN_NOTE)),
    ).toBe(false);
  });
});
