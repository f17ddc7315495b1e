import { describe, expect, it } from "vitest";
import { Agent, STRUCTURED_OUTPUT_TOOL } from "../../src/agent/index.js";
import { foldEvents, userConfirmResult } from "../../src/event/index.js";
import { blocksOf, textOf, userMsg } from "../../src/message/index.js";
import { type GoalOutcome, GoalPipeline } from "../../src/multiagent/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { collect, confirmOf, noteTool, scriptedAgent } from "./helpers.js";

const report = (text: string) => ({ toolCalls: [{ name: STRUCTURED_OUTPUT_TOOL, input: { report: text } }] });
const verdict = (result: string, message: string) => ({
  toolCalls: [{ name: STRUCTURED_OUTPUT_TOOL, input: { result, message } }],
});
const done = { text: "ok" };

describe("GoalPipeline", () => {
  it("a fail goes back to the executor with the verifier's message; a pass ends it", async () => {
    const executorModel = new ScriptedModel([report("wrote a draft"), report("added the tests")]);
    const executor = new Agent({ name: "executor", model: executorModel });
    const verifier = scriptedAgent("verifier", [
      verdict("fail", "tests are missing"),
      verdict("pass", "good"),
    ]);
    const goal = new GoalPipeline({ executor, verifier, goal: "ship the feature", maxIters: 3 });
    const events = await collect(goal.replyStream(userMsg("please")));
    const final = goal.state.context.at(-1)!;
    expect(final.finishedReason).toBe("completed");
    expect(final.structuredOutput).toEqual({
      result: "pass",
      report: "added the tests",
      message: "good",
      iterations: 2,
    } satisfies GoalOutcome);
    expect(textOf(final)).toBe("added the tests");
    // Steps are tool calls named after the participant; their runs stream nested.
    expect(blocksOf(final, "tool_call").map((c) => c.name)).toEqual([
      "executor",
      "verifier",
      "executor",
      "verifier",
    ]);
    expect(new Set(events.map((e) => e.source))).toEqual(
      new Set([undefined, "goal/executor", "goal/verifier"]),
    );
    expect(foldEvents(events)).toEqual(final);
    // The executor kept its session and got the verifier's message in round 2.
    const lastUser = executorModel.calls[1]!.messages.filter((m) => m.role === "user").map(textOf);
    expect(lastUser[0]).toContain("Goal: ship the feature");
    expect(lastUser.at(-1)).toContain("tests are missing");
  });

  it("impossible ends it, and maxIters stops it", async () => {
    const impossible = new GoalPipeline({
      executor: scriptedAgent("executor", [report("tried")]),
      verifier: scriptedAgent("verifier", [verdict("impossible", "no such API")]),
      goal: "g",
    });
    const msg = await impossible.reply(userMsg("go"));
    expect(msg.structuredOutput).toMatchObject({ result: "impossible", iterations: 1 });
    expect(textOf(msg)).toContain("cannot be met: no such API");

    const capped = new GoalPipeline({
      executor: scriptedAgent("executor", [report("r1"), report("r2")]),
      verifier: scriptedAgent("verifier", [verdict("fail", "no"), verdict("fail", "still no")]),
      goal: "g",
      maxIters: 2,
    });
    const events = await collect(capped.replyStream(userMsg("go")));
    expect(events.some((e) => e.type === "EXCEED_MAX_ITERS" && e.source === undefined)).toBe(true);
    expect(capped.state.context.at(-1)).toMatchObject({
      finishedReason: "exceed_max_iters",
      structuredOutput: { result: "max_iters", report: "r2", iterations: 2 },
    });
  });

  it("a step without structured output gets one reminder", async () => {
    const reminded = new GoalPipeline({
      executor: new Agent({
        name: "executor",
        model: new ScriptedModel([{ text: "I did it" }, report("done now")]),
        maxIters: 1,
      }),
      verifier: scriptedAgent("verifier", [verdict("pass", "fine")]),
      goal: "g",
    });
    // The executor (maxIters 1) answers in text and ends without its structured output; the reminder gets it.
    const msg = await reminded.reply(userMsg("go"));
    expect(msg.structuredOutput).toMatchObject({ result: "pass", report: "done now", iterations: 1 });
    expect(blocksOf(msg, "tool_call").map((c) => c.name)).toEqual(["executor", "executor", "verifier"]);
  });

  it("a participant's pause pauses the pipeline; the round count survives the pause and the resume", async () => {
    const log: string[] = [];
    const executor = scriptedAgent(
      "executor",
      [
        report("r1"),
        { toolCalls: [{ id: "call_w", name: "write_note", input: { text: "fix" } }] },
        done,
        report("r2"),
      ],
      [noteTool(log)],
    );
    const verifier = scriptedAgent("verifier", [verdict("fail", "fix it"), verdict("pass", "fixed")]);
    const goal = new GoalPipeline({ executor, verifier, goal: "g" });
    const first = await collect(goal.replyStream(userMsg("go")));
    const ask = confirmOf(first);
    expect(ask.source).toBe("goal/executor");
    expect(goal.state.replyContext).toMatchObject({ iteration: 2, waitingFor: "user_confirm" });
    // Through JSON, as a store would keep it.
    goal.state = JSON.parse(JSON.stringify(goal.state));
    const second = await collect(
      goal.replyStream(
        userConfirmResult({
          replyId: ask.replyId,
          confirmResults: [
            { confirmed: true, toolCall: { id: "call_w", name: "write_note", input: '{"text":"fix"}' } },
          ],
        }),
      ),
    );
    expect(log).toEqual(["fix"]);
    const final = goal.state.context.at(-1)!;
    expect(final.structuredOutput).toMatchObject({ result: "pass", report: "r2", iterations: 2 });
    expect(foldEvents([...first, ...second])).toEqual(final);
  });
});
