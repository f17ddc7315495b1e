import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  applyScorer,
  type CaseRun,
  calibrateJudge,
  type EvalCase,
  followsRecording,
  matchesTrajectory,
  noDeniedCall,
  outputEquals,
  outputFitsSchema,
  type RecordedToolCall,
  rubricScorer,
  type Scorer,
  scorer,
  scorerFromSpec,
  textContains,
  textMatches,
  toolCalled,
  toolNotCalled,
  trajectoryMatches,
  weighted,
  withinLimits,
} from "../../src/eval/index.js";
import { userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

const CASE: EvalCase = { id: "c", input: { messages: [userMsg("what does todo.txt say?")] } };

function call(name: string, input: unknown, state = "success"): RecordedToolCall {
  return {
    id: `call_${name}`,
    name,
    input,
    decision: state === "denied" ? "deny" : "allow",
    result: { state, output: "" },
  };
}

function runWith(
  options: {
    calls?: RecordedToolCall[][];
    text?: string;
    output?: unknown;
    tokens?: [number, number];
    latencyMs?: number;
  } = {},
): CaseRun {
  const turns = (options.calls ?? []).map((toolCalls) => ({ toolCalls }));
  const [inputTokens, outputTokens] = options.tokens ?? [10, 5];
  return {
    caseId: "c",
    mode: "live",
    trajectory: {
      turns,
      replies: [],
      finalText: options.text ?? "",
      ...(options.output !== undefined ? { structuredOutput: options.output } : {}),
      usage: { inputTokens, outputTokens },
      latencyMs: options.latencyMs ?? 1,
      events: 0,
    },
  };
}

const score = (s: Scorer, run: CaseRun, evalCase: EvalCase = CASE) => applyScorer(s, { case: evalCase, run });

describe("deterministic scorers score right and wrong runs apart", () => {
  const run = runWith({
    calls: [[call("read_file", { path: "todo.txt", limit: 10 })], [call("write_note", { text: "milk" })]],
  });

  it("toolCalled: name, partial arguments, a predicate and an exact count", async () => {
    expect((await score(toolCalled("read_file"), run)).pass).toBe(true);
    expect((await score(toolCalled("read_file", { args: { path: "todo.txt" } }), run)).pass).toBe(true);
    expect(
      (
        await score(
          toolCalled("read_file", { args: (input) => (input as { limit: number }).limit === 10 }),
          run,
        )
      ).pass,
    ).toBe(true);
    const wrongArgs = await score(toolCalled("read_file", { args: { path: "plan.txt" } }), run);
    expect(wrongArgs).toMatchObject({ pass: false, value: 0 });
    expect(wrongArgs.reason).toContain('"path":"todo.txt"');
    expect((await score(toolCalled("search"), run)).pass).toBe(false);
    expect((await score(toolCalled("read_file", { times: 2 }), run)).pass).toBe(false);
    expect((await score(toolCalled("read_file", { times: 1 }), run)).pass).toBe(true);
  });

  it("toolNotCalled and noDeniedCall", async () => {
    expect((await score(toolNotCalled("search"), run)).pass).toBe(true);
    expect((await score(toolNotCalled("write_note"), run)).pass).toBe(false);
    expect((await score(noDeniedCall(), run)).pass).toBe(true);
    const denied = runWith({ calls: [[call("write_note", { text: "x" }, "denied")]] });
    const result = await score(noDeniedCall(), denied);
    expect(result.pass).toBe(false);
    expect(result.reason).toContain("write_note");
  });

  it("textContains (share found, case folding) and textMatches", async () => {
    const answer = runWith({ text: "Done: Buy milk" });
    expect((await score(textContains("Buy milk"), answer)).pass).toBe(true);
    expect((await score(textContains("buy milk"), answer)).pass).toBe(false);
    expect((await score(textContains("buy milk", { ignoreCase: true }), answer)).pass).toBe(true);
    expect(await score(textContains(["Done", "eggs"]), answer)).toMatchObject({ pass: false, value: 0.5 });
    expect((await score(textMatches(/^Done: \w+/), answer)).pass).toBe(true);
    expect((await score(textMatches("^milk"), answer)).pass).toBe(false);
  });

  it("outputEquals and outputFitsSchema (zod and JSON Schema)", async () => {
    const out = runWith({ output: { city: "Paris", temp: 21 } });
    expect((await score(outputEquals({ city: "Paris", temp: 21 }), out)).pass).toBe(true);
    expect((await score(outputEquals({ city: "Paris", temp: 22 }), out)).pass).toBe(false);
    expect((await score(outputFitsSchema(z.object({ city: z.string(), temp: z.number() })), out)).pass).toBe(
      true,
    );
    expect((await score(outputFitsSchema(z.object({ temp: z.string() })), out)).pass).toBe(false);
    const json = {
      type: "object",
      required: ["city"],
      properties: { temp: { type: "number", maximum: 20 } },
    };
    const tooWarm = await score(outputFitsSchema(json), out);
    expect(tooWarm.pass).toBe(false);
    expect(tooWarm.reason).toContain("/temp");
    expect((await score(outputFitsSchema({ type: "object", required: ["city"] }), out)).pass).toBe(true);
    expect((await score(outputFitsSchema(json), runWith())).reason).toContain("no structured output");
  });

  it("trajectoryMatches with * (one call) and ** (any run)", async () => {
    expect(matchesTrajectory(["a", "b", "c"], ["a", "**"])).toBe(true);
    expect(matchesTrajectory(["a", "b", "c"], ["a", "*"])).toBe(false);
    expect(matchesTrajectory(["a", "b", "c"], ["**", "c"])).toBe(true);
    expect(matchesTrajectory([], ["**"])).toBe(true);
    expect(matchesTrajectory(["a"], ["*", "**"])).toBe(true);
    expect(matchesTrajectory(["b", "a"], ["a", "**"])).toBe(false);
    expect((await score(trajectoryMatches(["read_file", "write_note"]), run)).pass).toBe(true);
    expect((await score(trajectoryMatches(["write_note", "*"]), run)).pass).toBe(false);
  });

  it("withinLimits: tokens, cost at prices, latency and iterations", async () => {
    const heavy = runWith({ calls: [[], [], []], tokens: [900, 200], latencyMs: 50 });
    expect((await score(withinLimits({ tokens: 1100, iterations: 3, latencyMs: 50 }), heavy)).pass).toBe(
      true,
    );
    const over = await score(withinLimits({ tokens: 1000, iterations: 2 }), heavy);
    expect(over.pass).toBe(false);
    expect(over.reason).toBe("tokens 1100 > 1000, iterations 3 > 2");
    const prices = { inputPerMTok: 1000, outputPerMTok: 5000 }; // 0.9 + 1.0 = $1.90
    expect((await score(withinLimits({ costUsd: 2 }, { prices }), heavy)).pass).toBe(true);
    expect((await score(withinLimits({ costUsd: 1.5 }, { prices }), heavy)).pass).toBe(false);
    expect(() => withinLimits({ costUsd: 1 })).toThrow(/prices/);
  });

  it("followsRecording passes only without a divergence", async () => {
    const recorded: EvalCase = { ...CASE, recording: { turns: [] } };
    expect((await score(followsRecording(), run, recorded)).pass).toBe(true);
    const diverged = {
      ...run,
      divergence: {
        turn: 1,
        kind: "system" as const,
        path: "request.system",
        expected: "a",
        actual: "b",
        message: "turn 1: the system prompt differs",
      },
    };
    expect(await score(followsRecording(), diverged, recorded)).toMatchObject({
      pass: false,
      reason: "turn 1: the system prompt differs",
    });
    expect((await score(followsRecording(), run)).pass).toBe(false);
  });
});

describe("composition and custom scorers", () => {
  const run = runWith({ calls: [[call("read_file", { path: "todo.txt" })]], text: "buy milk" });

  it("weighted: the weighted mean of the parts, passing at the threshold", async () => {
    const parts = [toolCalled("read_file"), { ...textContains("eggs"), weight: 3 }];
    expect(await score(weighted("mix", parts), run)).toMatchObject({ value: 0.25, pass: false });
    expect((await score(weighted("mix", parts, { threshold: 0.2 }), run)).pass).toBe(true);
    const details = (await score(weighted("mix", parts), run)).details as Array<{
      scorer: string;
      pass: boolean;
    }>;
    expect(details.map((d) => [d.scorer, d.pass])).toEqual([
      ["tool_called:read_file", true],
      ["text_contains:eggs", false],
    ]);
  });

  it("a custom scorer is a function: boolean, number or a result; a throw is a failed score", async () => {
    expect(
      (
        await score(
          scorer("short", ({ run }) => run.trajectory.finalText.length < 20),
          run,
        )
      ).pass,
    ).toBe(true);
    expect(
      await score(
        scorer("half", () => 0.5, { threshold: 0.5 }),
        run,
      ),
    ).toMatchObject({ value: 0.5, pass: true });
    expect(
      await score(
        scorer("half", () => 0.5),
        run,
      ),
    ).toMatchObject({ pass: false });
    const broken = await score(
      scorer("broken", () => {
        throw new Error("boom");
      }),
      run,
    );
    expect(broken).toMatchObject({ pass: false, value: 0, reason: "scorer failed: boom" });
  });

  it("expectations in a dataset become the same scorers", async () => {
    const spec = (s: Record<string, unknown>) => scorerFromSpec(s as never);
    expect(
      (await score(spec({ type: "tool_called", tool: "read_file", args: { path: "todo.txt" } }), run)).pass,
    ).toBe(true);
    expect(
      (await score(spec({ type: "tool_called", tool: "read_file", args: { path: "x" } }), run)).pass,
    ).toBe(false);
    expect((await score(spec({ type: "text_contains", text: "MILK", ignoreCase: true }), run)).pass).toBe(
      true,
    );
    expect((await score(spec({ type: "trajectory", sequence: ["*"] }), run)).pass).toBe(true);
    expect((await score(spec({ type: "limits", tokens: 1 }), run)).pass).toBe(false);
    expect(spec({ type: "no_denied_call", name: "safe", weight: 2 })).toMatchObject({
      name: "safe",
      weight: 2,
    });
    expect(() => spec({ type: "tool_caled", tool: "x" })).toThrow(
      /unknown expectation "tool_caled"; use one of tool_called/,
    );
    expect(() => spec({ type: "tool_called" })).toThrow(/"tool" must be a non-empty string/);
    expect(() => spec({ type: "rubric", rubric: "x" })).toThrow(/needs a judge model/);
  });
});

describe("rubric scorer with the scripted model as the judge", () => {
  const run = runWith({
    calls: [[call("read_file", { path: "todo.txt" })]],
    text: "The file says: buy milk.",
  });

  it("keeps the judge's grade and reasoning, and shows it the rubric, examples, calls and answer", async () => {
    const judge = new ScriptedModel([{ text: '{"reasoning": "It quotes the file.", "score": 0.9}' }]);
    const rubric = rubricScorer({
      model: judge,
      rubric: "The answer quotes the file's content.",
      examples: [{ input: "what is in a.txt?", answer: "I don't know", score: 0, reasoning: "no quote" }],
    });
    const result = await score(rubric, run);
    expect(result).toMatchObject({ scorer: "rubric", value: 0.9, pass: true, reason: "It quotes the file." });
    expect(result.details).toEqual({ score: 0.9, reasoning: "It quotes the file." });
    const prompt = judge.calls[0]!.messages.at(-1)!.content[0] as { text: string };
    expect(prompt.text).toContain("The answer quotes the file's content.");
    expect(prompt.text).toContain("I don't know");
    expect(prompt.text).toContain('read_file({"path":"todo.txt"}) → success');
    expect(prompt.text).toContain("The file says: buy milk.");
  });

  it("fails below the threshold, and when the judge does not answer with a grade", async () => {
    const low = rubricScorer({
      model: new ScriptedModel([{ text: 'Sure! {"score": 0.2, "reasoning": "vague"}' }]),
      rubric: "r",
    });
    expect(await score(low, run)).toMatchObject({ value: 0.2, pass: false, reason: "vague" });
    const chatty = rubricScorer({ model: new ScriptedModel([{ text: "I think it is fine." }]), rubric: "r" });
    expect((await score(chatty, run)).reason).toMatch(/scorer failed: the judge's answer has no JSON object/);
    const outOfRange = rubricScorer({ model: new ScriptedModel([{ text: '{"score": 7}' }]), rubric: "r" });
    expect((await score(outOfRange, run)).reason).toMatch(/must be a number from 0 to 1, got 7/);
  });

  it("calibrateJudge reports agreement with labelled examples", async () => {
    const judge = new ScriptedModel([
      { text: '{"score": 1}' },
      { text: '{"score": 0.8}' },
      { text: '{"score": 0}' },
    ]);
    const calibration = await calibrateJudge({ model: judge, rubric: "r" }, [
      { input: "a", answer: "good", score: 1 },
      { input: "b", answer: "bad", score: 0 },
      { input: "c", answer: "bad", score: 0 },
    ]);
    expect(calibration.agreement).toBeCloseTo(2 / 3);
    expect(calibration.meanError).toBeCloseTo(0.8 / 3);
  });
});
