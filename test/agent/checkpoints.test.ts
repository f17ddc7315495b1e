import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, type CheckpointReason } from "../../src/agent/index.js";
import { textOf, userMsg } from "../../src/message/index.js";
import type { AgentState } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";

/** The checkpoint reasons of one reply, with the reply's text as saved at each. */
async function checkpointsOf(agent: Agent): Promise<Array<{ reason: CheckpointReason; saved: string }>> {
  const saves: Array<{ reason: CheckpointReason; saved: string }> = [];
  const checkpoint = (state: AgentState, reason: CheckpointReason) => {
    const last = state.context.at(-1);
    saves.push({ reason, saved: last?.role === "assistant" ? textOf(last) : "" });
  };
  await agent.reply(userMsg("go"), { checkpoint });
  return saves;
}

const lookup = functionTool({
  name: "lookup",
  description: "looks a word up",
  input: z.object({ word: z.string() }),
  readOnly: true,
  execute: ({ word }) => `${word}: found`,
});

describe("checkpoints", () => {
  it("a plain answer is saved at the start and at the end, not twice at the end", async () => {
    const agent = new Agent({ name: "a", model: new ScriptedModel([{ text: "hello there" }]) });
    expect(await checkpointsOf(agent)).toEqual([
      { reason: "reply_start", saved: "" },
      { reason: "reply_end", saved: "hello there" },
    ]);
  });

  it("a model call the reply goes on from (tool calls) is saved before the tools run", async () => {
    const model = new ScriptedModel([
      { text: "let me look", toolCalls: [{ name: "lookup", input: { word: "x" } }] },
      { text: "done" },
    ]);
    const agent = new Agent({ name: "a", model, toolkit: [lookup] });
    const reasons = (await checkpointsOf(agent)).map((save) => save.reason);
    expect(reasons).toEqual(["reply_start", "model_call", "tool_result", "reply_end"]);
  });
});
