import { z } from "zod";
import type { ReplyInput, ReplyOptions } from "../agent/index.js";
import type { AgentEvent, InputEvent } from "../event/index.js";
import { type Msg, newId, textOf } from "../message/index.js";
import { type AgentState, emptyAgentState } from "../state/index.js";
import type { AgentLike } from "./agent-like.js";
import { OrchestratedReply, type StepOutcome } from "./orchestrated-reply.js";

export const ExecutorReport = z.object({ report: z.string().describe("What you did and what came of it") });
export const VerifierVerdict = z.object({
  result: z
    .enum(["pass", "fail", "impossible"])
    .describe("pass: the goal is met; fail: not yet; impossible: it cannot be met"),
  message: z.string().describe("Why; for a fail, what the executor must do next"),
});
export type Verdict = z.infer<typeof VerifierVerdict>;

/** What a GoalPipeline reply ends with (its Msg's `structuredOutput`). */
export interface GoalOutcome {
  result: Verdict["result"] | "max_iters";
  report: string;
  message: string;
  iterations: number;
}

export interface GoalPipelineOptions {
  executor: AgentLike;
  verifier: AgentLike;
  /** What must be achieved; the user's message (if any) is added as context. */
  goal: string;
  /** Executor-verifier rounds before giving up (default 5). */
  maxIters?: number;
  name?: string;
}

/** Where the pipeline keeps its progress in its state (the iteration count lives in replyContext). */
const PROGRESS_KEY = "agentscope.goal";
interface Progress {
  phase: "execute" | "verify";
  report: string;
  /** The verifier's last "fail" message, for the executor's next round. */
  feedback: string;
  reminded: boolean;
}

/**
 * Executor and verifier in a loop: the executor works toward `goal` and reports (structured
 * `{ report }`), the verifier judges the report (`{ result, message }`); a fail goes back to the
 * executor with the verifier's message, until pass, impossible, or `maxIters` rounds. A step that
 * returns no structured output is run once more with a reminder. Steps stream nested
 * (`<name>/<executor>`); a participant's pause pauses the pipeline, and the round it is in survives
 * the pause (it is in the state).
 */
export class GoalPipeline implements AgentLike {
  readonly name: string;
  state: AgentState;
  private readonly maxIters: number;

  constructor(private readonly options: GoalPipelineOptions) {
    if (options.executor.name === options.verifier.name) {
      throw new TypeError("GoalPipeline: the executor and the verifier need different names");
    }
    this.name = options.name ?? "goal";
    this.maxIters = options.maxIters ?? 5;
    if (!Number.isInteger(this.maxIters) || this.maxIters < 1) {
      throw new TypeError(`GoalPipeline: maxIters must be a positive integer (got ${options.maxIters})`);
    }
    this.state = this.createState();
  }

  createState(sessionId: string = newId("session")): AgentState {
    return emptyAgentState(sessionId);
  }

  async reply(input?: ReplyInput, options: ReplyOptions = {}): Promise<Msg> {
    for await (const _ of this.replyStream(input, options)) {
      // drained for its effect on the state
    }
    const state = options.state ?? this.state;
    return state.context.at(-1)!;
  }

  async *replyStream<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: ReplyOptions<S> = {},
  ): AsyncGenerator<AgentEvent> {
    const state = options.state ?? this.state;
    let run: OrchestratedReply;
    let outcome: StepOutcome | undefined;
    if (isAnswer(input)) {
      run = OrchestratedReply.resume(this.name, state, input, options);
      outcome = yield* run.continueStep(
        (name) => (name === this.options.executor.name ? this.options.executor : this.options.verifier),
        input,
        (name) => this.stepOptions(name),
      );
    } else {
      const messages = input === undefined ? [] : Array.isArray(input) ? input : [input];
      run = OrchestratedReply.start(this.name, state, messages, options);
      state.toolContext[PROGRESS_KEY] = {
        phase: "execute",
        report: "",
        feedback: "",
        reminded: false,
      } satisfies Progress;
      yield* run.drain();
    }
    yield* this.loop(run, outcome);
  }

  private stepOptions(name: string) {
    return name === this.options.executor.name
      ? { structuredOutput: ExecutorReport, keep: "goal:executor" }
      : { structuredOutput: VerifierVerdict };
  }

  /** The rounds; `last` is the outcome of a step just continued after a pause. */
  private async *loop(run: OrchestratedReply, last: StepOutcome | undefined): AsyncGenerator<AgentEvent> {
    const { executor, verifier, goal } = this.options;
    const reply = run.state.replyContext!;
    const progress = run.state.toolContext[PROGRESS_KEY] as Progress;
    let outcome = last;
    while (true) {
      if (outcome === undefined) {
        if (run.signal?.aborted) return yield* run.end("interrupted");
        if (progress.phase === "execute") {
          if (!progress.reminded) {
            if (reply.iteration >= this.maxIters) return yield* this.giveUp(run, progress);
            reply.iteration += 1;
          }
          outcome = yield* run.step(
            executor,
            this.executorPrompt(run, goal, progress),
            this.stepOptions(executor.name),
          );
        } else {
          outcome = yield* run.step(
            verifier,
            this.verifierPrompt(goal, progress),
            this.stepOptions(verifier.name),
          );
        }
      }
      if (outcome.paused) return;
      const msg = outcome.reply;
      outcome = undefined;
      if (msg.finishedReason === "interrupted" || run.signal?.aborted) return yield* run.end("interrupted");
      const value = msg.structuredOutput;
      if (value === undefined) {
        if (progress.reminded) {
          run.say(`${msg.name} gave no structured output after a reminder; stopping.`);
          return yield* run.end("error");
        }
        progress.reminded = true;
        continue;
      }
      progress.reminded = false;
      if (progress.phase === "execute") {
        progress.report = (value as z.infer<typeof ExecutorReport>).report;
        progress.phase = "verify";
        continue;
      }
      const verdict = value as Verdict;
      progress.phase = "execute";
      if (verdict.result === "fail") {
        progress.feedback = verdict.message;
        continue;
      }
      run.say(verdict.result === "pass" ? progress.report : `The goal cannot be met: ${verdict.message}`);
      const result: GoalOutcome = {
        result: verdict.result,
        report: progress.report,
        message: verdict.message,
        iterations: reply.iteration,
      };
      delete run.state.toolContext[PROGRESS_KEY];
      return yield* run.end("completed", result);
    }
  }

  private async *giveUp(run: OrchestratedReply, progress: Progress): AsyncGenerator<AgentEvent> {
    run.emit("EXCEED_MAX_ITERS", { maxIters: this.maxIters });
    run.say(`The goal was not met in ${this.maxIters} round(s). Last report: ${progress.report}`);
    const result: GoalOutcome = {
      result: "max_iters",
      report: progress.report,
      message: "",
      iterations: this.maxIters,
    };
    delete run.state.toolContext[PROGRESS_KEY];
    yield* run.end("exceed_max_iters", result);
  }

  private executorPrompt(run: OrchestratedReply, goal: string, progress: Progress): string {
    const feedback = progress.feedback;
    if (progress.reminded)
      return "You did not return your structured output. Call the output tool now with { report }.";
    if (feedback)
      return `The verifier says the goal is not met yet:\n${feedback}\n\nKeep working toward the goal, then report again.`;
    const asked = run.state.context
      .filter((m) => m.role === "user")
      .map(textOf)
      .at(-1);
    return `Goal: ${goal}${asked ? `\n\nRequest: ${asked}` : ""}\n\nWork toward the goal, then report what you did.`;
  }

  private verifierPrompt(goal: string, progress: Progress): string {
    const base = `Goal: ${goal}\n\nThe executor reports:\n${progress.report}\n\nJudge whether the goal is met: pass, fail (say what is missing) or impossible.`;
    return progress.reminded
      ? `${base}\n\nYou did not return your structured output: call the output tool now.`
      : base;
  }
}

function isAnswer(input: ReplyInput): input is InputEvent {
  return typeof input === "object" && input !== null && !Array.isArray(input) && "type" in input;
}
