import { createMsg, textOf } from "../../message/index.js";
import type { ChatModel } from "../../model/index.js";
import { show } from "../divergence.js";
import type { CaseRun } from "../run-case.js";
import { toolCallsOf } from "../trajectory.js";
import type { ScoreInput, Scorer, ScorerOptions } from "./scorer.js";

/** A graded example shown to the judge (few-shot) and used to check it (`calibrateJudge`). */
export interface LabelledExample {
  /** The user's request. */
  input: string;
  /** The agent's answer. */
  answer: string;
  /** The grade a person gave, 0 to 1. */
  score: number;
  /** Why, shown to the judge. */
  reasoning?: string;
}

export interface RubricOptions extends ScorerOptions {
  /** The judge model. */
  model: ChatModel;
  /** What a good answer does, in plain words. */
  rubric: string;
  name?: string;
  examples?: readonly LabelledExample[];
}

/** What the judge said: the grade and its reasoning, kept in the score's details. */
export interface JudgeVerdict {
  score: number;
  reasoning: string;
}

const JUDGE_PROMPT = [
  "You grade one answer of an AI agent against a rubric.",
  'Reply with one JSON object and nothing else: {"reasoning": "<why, in one or two sentences>", "score": <a number from 0 to 1>}.',
].join("\n");

function exampleText(example: LabelledExample, i: number): string {
  return [
    `Example ${i + 1}`,
    `Request: ${example.input}`,
    `Answer: ${example.answer}`,
    `Grade: ${JSON.stringify({ reasoning: example.reasoning ?? "", score: example.score })}`,
  ].join("\n");
}

function requestText(run: CaseRun, input: string): string {
  const calls = toolCallsOf(run.trajectory).map(
    (call) => `${call.name}(${show(call.input)}) → ${call.result?.state ?? "no result"}`,
  );
  return [
    `Request: ${input}`,
    `Tool calls: ${calls.length ? calls.join("; ") : "none"}`,
    `Answer: ${run.trajectory.finalText}`,
  ].join("\n");
}

/** Reads the judge's JSON verdict out of its text (the first `{...}` in it). */
export function parseVerdict(text: string): JudgeVerdict {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) throw new Error(`the judge's answer has no JSON object: ${show(text)}`);
  const value = JSON.parse(text.slice(start, end + 1)) as { score?: unknown; reasoning?: unknown };
  if (typeof value.score !== "number" || value.score < 0 || value.score > 1)
    throw new Error(`the judge's "score" must be a number from 0 to 1, got ${show(value.score)}`);
  return { score: value.score, reasoning: typeof value.reasoning === "string" ? value.reasoning : "" };
}

/** Asks the judge to grade one answer; the verdict or an error naming what the judge got wrong. */
export async function askJudge(
  options: Pick<RubricOptions, "model" | "rubric" | "examples">,
  graded: string,
): Promise<JudgeVerdict> {
  const examples = (options.examples ?? []).map(exampleText);
  const prompt = [`Rubric:\n${options.rubric}`, ...examples, `Now grade this one.\n${graded}`].join("\n\n");
  let text = "";
  for await (const chunk of options.model.stream([
    createMsg("system", JUDGE_PROMPT),
    createMsg("user", prompt),
  ])) {
    if (chunk.type === "final") text = textOf({ content: chunk.content });
  }
  return parseVerdict(text);
}

const userText = (input: ScoreInput) => input.case.input.messages.map((msg) => textOf(msg)).join("\n");

/**
 * A model-judged scorer: the judge reads the rubric, the labelled examples, the request, the tool
 * calls and the answer, and answers with a grade and its reasoning (kept in `details` and the
 * reason). Passes at `threshold` (default 0.5). A judge answer that is not a grade fails the score.
 */
export function rubricScorer(options: RubricOptions): Scorer {
  const { model, rubric, examples, name, weight, threshold } = options;
  return {
    name: name ?? "rubric",
    weight: weight ?? 1,
    threshold: threshold ?? 0.5,
    async score(input) {
      const verdict = await askJudge({ model, rubric, examples }, requestText(input.run, userText(input)));
      return {
        value: verdict.score,
        reason: verdict.reasoning || `graded ${verdict.score}`,
        details: verdict,
      };
    },
  };
}

export interface Calibration {
  /** Share of examples where the judge's pass/fail agrees with the label's (at the threshold). */
  agreement: number;
  /** Mean absolute difference between the judge's grade and the label. */
  meanError: number;
  results: Array<{ example: LabelledExample; verdict: JudgeVerdict }>;
}

/** Grades labelled examples with the judge (without them in its prompt) and reports how far it agrees. */
export async function calibrateJudge(
  options: Pick<RubricOptions, "model" | "rubric" | "threshold">,
  examples: readonly LabelledExample[],
): Promise<Calibration> {
  const threshold = options.threshold ?? 0.5;
  const results: Calibration["results"] = [];
  for (const example of examples) {
    const verdict = await askJudge(options, `Request: ${example.input}\nAnswer: ${example.answer}`);
    results.push({ example, verdict });
  }
  const agree = results.filter((r) => r.verdict.score >= threshold === r.example.score >= threshold).length;
  const error = results.reduce((sum, r) => sum + Math.abs(r.verdict.score - r.example.score), 0);
  return {
    agreement: results.length ? agree / results.length : 1,
    meanError: results.length ? error / results.length : 0,
    results,
  };
}
