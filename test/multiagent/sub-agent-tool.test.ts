import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent, STRUCTURED_OUTPUT_TOOL } from "../../src/agent/index.js";
import { foldEvents, type SubagentExposedEvent } from "../../src/event/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import { foldSubRun, narrowPermission, subAgentTool, subRunsIn } from "../../src/multiagent/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool } from "../../src/tool/index.js";
import { collect, noteTool, scriptedAgent } from "./helpers.js";

const lookup = functionTool({
  name: "lookup",
  description: "Looks a word up",
  input: z.object({ word: z.string() }),
  readOnly: true,
  execute: ({ word }) => `${word}: a small dog`,
});

describe("subAgentTool", () => {
  it("streams the sub-run nested: SUBAGENT_EXPOSED, sources, its answer as the tool result, usage rolled up", async () => {
    const researcher = scriptedAgent(
      "researcher",
      [
        {
          toolCalls: [{ name: "lookup", input: { word: "pug" } }],
          usage: { inputTokens: 10, outputTokens: 3 },
        },
        { text: "A pug is a small dog.", usage: { inputTokens: 20, outputTokens: 7 } },
      ],
      [lookup],
    );
    const main = scriptedAgent(
      "main",
      [
        {
          toolCalls: [{ id: "call_r", name: "researcher", input: { prompt: "What is a pug?" } }],
          usage: { inputTokens: 100, outputTokens: 5 },
        },
        { text: "It is a small dog.", usage: { inputTokens: 200, outputTokens: 6 } },
      ],
      [subAgentTool(researcher, { description: "Researches a question" })],
    );
    const events = await collect(main.replyStream(userMsg("Tell me about pugs")));
    const parentId = events[0]!.replyId;

    // Parent events carry no source; every sub-run event carries main/researcher.
    const exposed = subRunsIn(events);
    expect(exposed).toHaveLength(1);
    const ex = exposed[0] as SubagentExposedEvent;
    expect(ex).toMatchObject({
      name: "researcher",
      toolCallId: "call_r",
      parentReplyId: parentId,
      source: "main/researcher",
    });
    const subEvents = events.filter((e) => e.replyId === ex.replyId);
    expect(subEvents.length).toBeGreaterThan(5);
    expect(subEvents.every((e) => e.source === "main/researcher")).toBe(true);
    expect(events.filter((e) => e.replyId === parentId && e.source === undefined).length).toBeGreaterThan(5);

    // Order: the parent's call starts, then SUBAGENT_EXPOSED, the sub-run start..end, then the parent's result ends.
    const at = (pred: (e: (typeof events)[number]) => boolean) => events.findIndex(pred);
    const resultStart = at(
      (e) => e.type === "TOOL_RESULT_START" && e.toolCallId === "call_r" && e.replyId === parentId,
    );
    const exposedAt = at((e) => e.type === "SUBAGENT_EXPOSED");
    const subStart = at((e) => e.type === "REPLY_START" && e.replyId === ex.replyId);
    const subEnd = at((e) => e.type === "REPLY_END" && e.replyId === ex.replyId);
    const resultEnd = at((e) => e.type === "TOOL_RESULT_END" && e.toolCallId === "call_r");
    expect(resultStart).toBeLessThan(exposedAt);
    expect(exposedAt).toBe(subStart - 1);
    expect(subStart).toBeLessThan(subEnd);
    expect(subEnd).toBeLessThan(resultEnd);

    // The parent's fold is the parent's Msg (sub-run events fold elsewhere); it equals the stored one.
    const stored = main.state.context.at(-1)!;
    expect(foldEvents(events)).toEqual(stored);
    const result = blocksOf(stored, "tool_result")[0]!;
    expect(result).toMatchObject({ name: "researcher", state: "success", output: "A pug is a small dog." });
    expect(textOf(stored)).toContain("It is a small dog.");
    // Usage: the parent's two calls plus the sub-run's two.
    expect(stored.usage).toMatchObject({ inputTokens: 330, outputTokens: 21 });

    // The sub-run folds out of the same stream.
    const sub = foldSubRun(events, { source: "main/researcher" })!;
    expect(sub.id).toBe(ex.replyId);
    expect(sub.name).toBe("researcher");
    expect(sub.finishedReason).toBe("completed");
    expect(blocksOf(sub, "tool_result")[0]!.output).toBe("pug: a small dog");
    expect(sub.usage).toEqual({ inputTokens: 30, outputTokens: 10 });
    expect(foldSubRun(events, { replyId: ex.replyId })).toEqual(sub);
    // The sub-run's session was a fresh one and is gone from the parent's tool context once it ended.
    expect(main.state.toolContext["agentscope.subRuns"]).toEqual({});
  });

  it("nests paths two levels deep (main/researcher/coder)", async () => {
    const coder = scriptedAgent("coder", [{ text: "print(1)" }]);
    const researcher = scriptedAgent(
      "researcher",
      [{ toolCalls: [{ name: "coder", input: { prompt: "write code" } }] }, { text: "code: print(1)" }],
      [subAgentTool(coder, { description: "Writes code" })],
    );
    const main = scriptedAgent(
      "main",
      [{ toolCalls: [{ name: "researcher", input: { prompt: "research" } }] }, { text: "done" }],
      [subAgentTool(researcher, { description: "Researches" })],
    );
    const events = await collect(main.replyStream(userMsg("go")));
    expect(subRunsIn(events).map((e) => e.source)).toEqual(["main/researcher", "main/researcher/coder"]);
    const coderRun = foldSubRun(events, { source: "main/researcher/coder" })!;
    expect(textOf(coderRun)).toBe("print(1)");
    const researcherRun = foldSubRun(events, { source: "main/researcher" })!;
    expect(blocksOf(researcherRun, "tool_result")[0]!.output).toBe("print(1)");
    expect(blocksOf(main.state.context.at(-1)!, "tool_result")[0]!.output).toBe("code: print(1)");
  });

  it("returns structured output and takes a typed input", async () => {
    const rater = new Agent({
      name: "rater",
      model: new ScriptedModel([
        (messages) => ({
          toolCalls: [
            {
              name: STRUCTURED_OUTPUT_TOOL,
              input: { score: textOf(messages.findLast((m) => m.role === "user")!).length },
            },
          ],
        }),
      ]),
    });
    const main = scriptedAgent(
      "main",
      [{ toolCalls: [{ name: "rate", input: { item: "abc" } }] }, { text: "rated" }],
      [
        subAgentTool(rater, {
          name: "rate",
          description: "Rates an item",
          input: z.object({ item: z.string() }),
          output: z.object({ score: z.number() }),
        }),
      ],
    );
    await main.reply(userMsg("rate abc"));
    const result = blocksOf(main.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.state).toBe("success");
    expect(JSON.parse(result.output as string)).toEqual({ score: '{"item":"abc"}'.length });
  });

  it("interrupting the parent interrupts the sub-agent, and the tool result says so", async () => {
    const slow = scriptedAgent("slow", [{ text: "a very long answer that takes a while", delayMs: 20 }]);
    const main = scriptedAgent(
      "main",
      [{ toolCalls: [{ id: "call_s", name: "slow", input: { prompt: "think" } }] }],
      [subAgentTool(slow, { description: "Thinks slowly" })],
    );
    const controller = new AbortController();
    const events = [];
    for await (const event of main.replyStream(userMsg("go"), { signal: controller.signal })) {
      events.push(event);
      if (event.type === "TEXT_BLOCK_DELTA" && event.source === "main/slow")
        controller.abort("user pressed stop");
    }
    const subEnd = events.find((e) => e.type === "REPLY_END" && e.source === "main/slow");
    expect(subEnd).toMatchObject({ finishedReason: "interrupted" });
    const parentEnd = events.at(-1)!;
    expect(parentEnd).toMatchObject({ type: "REPLY_END", finishedReason: "interrupted" });
    expect(parentEnd.source).toBeUndefined();
    const result = blocksOf(main.state.context.at(-1)!, "tool_result")[0]!;
    expect(result.state).toBe("interrupted");
    expect(String(result.output)).toContain("user pressed stop");
  });

  it("never widens permission: an explore parent runs its sub-agent in explore", async () => {
    const log: string[] = [];
    const writer = scriptedAgent(
      "writer",
      [{ toolCalls: [{ name: "write_note", input: { text: "x" } }] }, { text: "could not write" }],
      [noteTool(log)],
      { mode: "bypass" },
    );
    const main = scriptedAgent(
      "main",
      [{ toolCalls: [{ name: "writer", input: { prompt: "write x" } }] }, { text: "ok" }],
      [subAgentTool(writer, { description: "Writes" })],
      { mode: "explore" },
    );
    const events = await collect(main.replyStream(userMsg("go")));
    const sub = foldSubRun(events, { source: "main/writer" })!;
    expect(blocksOf(sub, "tool_result")[0]!.state).toBe("denied");
    expect(log).toEqual([]);
    expect(events.some((e) => e.type === "REQUIRE_USER_CONFIRM")).toBe(false);
  });

  it("narrowPermission keeps the narrower mode, the parent's deny rules and directories inside the parent's", () => {
    const parent = {
      mode: "default" as const,
      rules: [
        { toolName: "Bash", behavior: "deny" as const, source: "config" as const },
        { toolName: "Read", behavior: "allow" as const, source: "config" as const },
      ],
      workingDirectories: ["/srv/app"],
    };
    const child = narrowPermission(
      { mode: "bypass", rules: [], workingDirectories: ["/srv/app/sub", "/etc"] },
      parent,
    );
    expect(child.mode).toBe("default");
    expect(child.rules.map((r) => `${r.behavior}:${r.toolName}`)).toEqual(["deny:Bash"]);
    expect(child.workingDirectories).toEqual(["/srv/app/sub"]);
    expect(narrowPermission({ mode: "explore", rules: [], workingDirectories: [] }, parent)).toMatchObject({
      mode: "explore",
      workingDirectories: ["/srv/app"],
    });
  });
});

describe("subAgentTool with a prompt that names a place on disk", () => {
  it("runs without asking in explore mode: the prompt is not a path, the sub-agent's own calls are decided", async () => {
    const researcher = scriptedAgent("researcher", [{ text: "It holds the accounts." }]);
    const main = scriptedAgent(
      "main",
      [{ toolCalls: [{ name: "researcher", input: { prompt: "/etc/passwd" } }] }, { text: "Done." }],
      [subAgentTool(researcher, { description: "Researches" })],
      { mode: "explore", workingDirectories: [process.cwd()] },
    );
    const reply = await main.reply(userMsg("what is in /etc/passwd?"));
    expect(blocksOf(reply, "tool_result")[0]!.state).toBe("success");
    expect(textOf(reply)).toBe("Done.");
  });
});
