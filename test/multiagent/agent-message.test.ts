import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/index.js";
import { blocksOf, type Msg, textOf, userMsg } from "../../src/message/index.js";
import { type AgentSpawner, agentSpawner, SPAWNS_KEY, type SpawnRecord } from "../../src/multiagent/index.js";
import { ScriptedModel, type ScriptedStep } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect, gate } from "./helpers.js";

function parent(spawner: AgentSpawner, steps: ScriptedStep[]) {
  return new Agent({
    name: "main",
    model: new ScriptedModel(steps, { name: "main-model" }),
    toolkit: spawner.tools,
    middlewares: [spawner.middleware],
  });
}
const resultOf = (msg: Msg, id: string) => blocksOf(msg, "tool_result").find((r) => r.id === id)!;
const recordsOf = (agent: Agent) => agent.state.toolContext[SPAWNS_KEY] as SpawnRecord[];
const spawn = (id: string, background = false) => ({
  id,
  name: "agent_spawn",
  input: { template: "helper", prompt: "Count the pugs.", label: "counter", background },
});

describe("agent_message", () => {
  it("gives an ended sub-agent a new turn of its own session: it answers with what it did before, and the call waits for it", async () => {
    // The sub-agent's model sees its whole session: the first prompt, its answer, then the parent's message.
    const seen: Array<{ texts: string[]; last: Msg }> = [];
    const childModel = new ScriptedModel([
      { text: "3 pugs.", usage: { inputTokens: 4, outputTokens: 2 } },
      (messages) => {
        seen.push({
          texts: messages.map((m) => textOf(m)).filter(Boolean),
          last: structuredClone(messages.findLast((m) => m.role === "user")!),
        });
        return { text: "Of the 3, 2 are black.", usage: { inputTokens: 9, outputTokens: 6 } };
      },
    ]);
    const spawner = agentSpawner({
      templates: [{ name: "helper", description: "Counts", model: childModel }],
    });
    const main = parent(spawner, [
      { toolCalls: [spawn("s")] },
      {
        toolCalls: [
          { id: "m", name: "agent_message", input: { subagent_id: "sub_1", text: "How many are black?" } },
        ],
      },
      { text: "Two black pugs." },
    ]);
    const events = await collect(main.replyStream(userMsg("pugs?")));
    const reply = main.state.context.at(-1)!;
    expect(resultOf(reply, "s").output).toBe("3 pugs.");
    expect(resultOf(reply, "m")).toMatchObject({ state: "success", output: "Of the 3, 2 are black." });
    expect(seen[0]!.texts).toEqual(["Count the pugs.", "3 pugs.", "How many are black?"]);
    // The message says who sent it.
    expect(seen[0]!.last.metadata).toMatchObject({ from: "parent", toolCallId: "m" });
    // Its events stream nested through the messaging call, as a spawn's do.
    const nested = events.filter((e) => e.source === "main/counter" && e.type === "TEXT_BLOCK_DELTA");
    expect(nested.length).toBeGreaterThan(0);
    // The record follows its latest reply; usage is summed over both.
    expect(recordsOf(main)[0]).toMatchObject({
      status: "completed",
      result: "Of the 3, 2 are black.",
      delivered: true,
      usage: { inputTokens: 13, outputTokens: 8 },
    });
  });

  it("refuses a running sub-agent (nothing is queued); wait: false returns at once and the answer reaches a later step", async () => {
    const { open: release, hold } = gate();
    const childModel = new ScriptedModel([
      { toolCalls: [{ name: "hold", input: {} }] },
      { text: "first done" },
      { toolCalls: [{ name: "hold", input: {} }] },
      { text: "second done" },
    ]);
    const spawner = agentSpawner({
      templates: [{ name: "helper", description: "Counts", model: childModel, tools: [hold] }],
    });
    const open = functionTool({
      name: "open",
      description: "Lets the sub-agent finish",
      input: z.object({}),
      readOnly: true,
      pathsOf: () => [],
      execute: async (_input, ctx) => {
        release();
        await spawner.settled(ctx.sessionId, "sub_1");
        return "opened";
      },
    });
    let hints: string[] = [];
    const main = new Agent({
      name: "main",
      model: new ScriptedModel(
        [
          { toolCalls: [spawn("s", true)] },
          {
            toolCalls: [
              { id: "busy", name: "agent_message", input: { subagent_id: "sub_1", text: "More?" } },
            ],
          },
          { toolCalls: [{ id: "o", name: "open", input: {} }] },
          {
            toolCalls: [
              { id: "m", name: "agent_message", input: { subagent_id: "sub_1", text: "Again", wait: false } },
            ],
          },
          { toolCalls: [{ id: "o2", name: "open", input: {} }] },
          (messages) => {
            hints = messages.flatMap((m) => blocksOf(m, "hint").map((h) => h.text));
            return { text: "done" };
          },
        ],
        { name: "main-model" },
      ),
      toolkit: [...spawner.tools, open],
      middlewares: [spawner.middleware],
    });
    await main.reply(userMsg("go"));
    const reply = main.state.context.at(-1)!;
    expect(resultOf(reply, "busy")).toMatchObject({ state: "error" });
    expect(JSON.stringify(resultOf(reply, "busy").output)).toContain("sub_1 is still running");
    expect(String(resultOf(reply, "m").output)).toContain('"status":"running"');
    // The answer to the background message reached the parent as a hint before its next step.
    expect(hints.some((h) => h.includes("completed. Its result:\nsecond done"))).toBe(true);
    expect(recordsOf(main)[0]).toMatchObject({ status: "completed", result: "second done", delivered: true });
  });

  it("refuses an unknown id with the known ones, and is read-only like the other agent_* tools", async () => {
    const spawner = agentSpawner({
      templates: [{ name: "helper", description: "Counts", model: new ScriptedModel([{ text: "hi" }]) }],
    });
    const tool = spawner.tools.find((t) => t.name === "agent_message")!;
    expect(tool.readOnly).toBe(spawner.tools.find((t) => t.name === "agent_cancel")!.readOnly);
    const main = parent(spawner, [
      { toolCalls: [{ id: "m", name: "agent_message", input: { subagent_id: "sub_4", text: "hello" } }] },
      { text: "ok" },
    ]);
    await main.reply(userMsg("go"));
    const result = resultOf(main.state.context.at(-1)!, "m");
    expect(result.state).toBe("error");
    expect(JSON.stringify(result.output)).toContain('no sub-agent \\"sub_4\\" in this session');
  });
});
