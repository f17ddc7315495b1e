import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import {
  caseFromRun,
  type EvalCase,
  firstDivergence,
  type RecordedTurn,
  runCase,
} from "../../src/eval/index.js";
import { userMsg } from "../../src/message/index.js";
import { notesFactory, notesTools, PROMPT_READ } from "./notes-agent.js";

const CASE: EvalCase = {
  id: "todo",
  input: { messages: [userMsg("note what todo.txt says")] },
  confirmations: [{ tool: "write_note", confirmed: true }],
};

/** A live run of the notes agent, pinned as the case's recording. */
async function recorded(): Promise<EvalCase> {
  const run = await runCase(CASE, notesFactory(), { mode: "live" });
  expect(run.error).toBeUndefined();
  return caseFromRun(CASE, run);
}

describe("the first divergence of a replay", () => {
  it("a pinned live run replays green, turn for turn", async () => {
    const evalCase = await recorded();
    expect(evalCase.recording!.turns).toHaveLength(3);
    const run = await runCase(evalCase, notesFactory());
    expect(run.mode).toBe("replay");
    expect(run.divergence).toBeUndefined();
  });

  it("a tool removed from the agent: the tools offered differ at turn 1", async () => {
    const evalCase = await recorded();
    const fewer = (setup: Parameters<ReturnType<typeof notesFactory>>[0]) =>
      new Agent({
        name: "notes",
        systemPrompt: PROMPT_READ,
        toolkit: notesTools().filter((t) => t.name !== "search"),
        model: setup.model(),
      });
    const run = await runCase(evalCase, fewer);
    expect(run.divergence).toMatchObject({
      turn: 1,
      kind: "tools",
      message: "turn 1: the tools offered differ: missing search",
    });
  });

  it("a tool that answers differently: the next request's messages name the result that changed", async () => {
    const evalCase = await recorded();
    const changed = (setup: Parameters<ReturnType<typeof notesFactory>>[0]) => {
      const tools = notesTools();
      const read = tools[0]!;
      tools[0] = { ...read, call: async () => "buy eggs" };
      return new Agent({ name: "notes", systemPrompt: PROMPT_READ, toolkit: tools, model: setup.model() });
    };
    const run = await runCase(evalCase, changed);
    expect(run.divergence).toMatchObject({
      turn: 1,
      kind: "result",
      path: "toolCalls[0].result",
      expected: { state: "success", output: "buy milk" },
      actual: { state: "success", output: "buy eggs" },
    });
    // Without results in the recording (e.g. hand-written), the messages of turn 2 show it instead.
    const turns = evalCase.recording!.turns.map((t) => ({
      ...t,
      toolCalls: t.toolCalls?.map(({ result: _r, ...c }) => c),
    }));
    const messages = await runCase({ ...evalCase, recording: { turns } }, changed);
    expect(messages.divergence).toMatchObject({
      turn: 2,
      kind: "messages",
      path: "request.messages[1].toolResults[0]",
    });
    expect(messages.divergence!.message).toContain('"output":"buy milk"');
  });

  it("a denied confirmation and an agent that stops early or goes on", () => {
    const turn = (name: string, extra: object = {}): RecordedTurn => ({
      toolCalls: [{ id: "c1", name, input: {}, decision: "ask", confirmed: true, ...extra }],
    });
    expect(firstDivergence([turn("a")], [turn("a", { confirmed: false })])).toMatchObject({
      kind: "confirmation",
      turn: 1,
    });
    expect(firstDivergence([turn("a"), { text: "done" }], [turn("a")])).toMatchObject({
      kind: "turn_count",
      turn: 2,
      message: "turn 2: the agent stopped after 1 model call(s); the recording has 2",
    });
    expect(firstDivergence([turn("a")], [turn("a"), { text: "more" }])).toMatchObject({
      kind: "turn_count",
      turn: 2,
    });
    expect(firstDivergence([turn("a")], [{ text: "no call" }])!.message).toBe(
      "turn 1: the agent did not call a({}) (it made 0 call(s); the recording 1)",
    );
  });

  it("a confirmation the case cannot answer is a run error naming the call", async () => {
    const run = await runCase({ ...CASE, confirmations: [] }, notesFactory(), { mode: "live" });
    expect(run.error).toMatch(/asked to confirm write_note \(call .+\) and the case has no answer for it/);
  });
});
