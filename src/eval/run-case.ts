import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import type { Agent } from "../agent/index.js";
import type { RequireUserConfirmEvent } from "../event/index.js";
import type { Msg } from "../message/index.js";
import type { ChatModel } from "../model/index.js";
import type { EvalCase } from "./case.js";
import { ConfirmAnswers } from "./confirm-answers.js";
import { type Divergence, firstDivergence, type RequestPart } from "./divergence.js";
import { EvalCaseError } from "./eval-error.js";
import { ObservedModel } from "./observed-model.js";
import { replayModel } from "./replay-model.js";
import { type Trajectory, TrajectoryBuilder, toolCallsOf } from "./trajectory.js";

/** `replay`: the recorded model turns play the model. `live`: the agent's own model answers. */
export type RunMode = "replay" | "live";

/** What an AgentFactory gets for one run of one case. */
export interface AgentSetup {
  caseId: string;
  mode: RunMode;
  /**
   * The model the agent must use. In replay mode it is the recording (the argument is ignored); in
   * live mode it is `live` itself. Either way the eval observes every request through it.
   */
  model(live?: ChatModel): ChatModel;
  /** A fresh directory holding the case's `input.files`, when it has any (removed after the run). */
  workspace?: string;
}

/** Builds the agent under test for one run; build it with `setup.model(...)` as its model. */
export type AgentFactory = (setup: AgentSetup) => Agent | Promise<Agent>;

export interface CaseRun {
  caseId: string;
  mode: RunMode;
  trajectory: Trajectory;
  /** Where the run left the case's recording, if it has one and the run did. */
  divergence?: Divergence;
  /** The run could not finish (a model error, a confirmation the case does not answer...). */
  error?: string;
}

export interface RunCaseOptions {
  mode?: RunMode;
  /** Parts of each request not compared with the recording (see firstDivergence). */
  ignore?: readonly RequestPart[];
  signal?: AbortSignal;
}

/** Confirmation rounds one reply may take before the run is stopped as a loop. */
const MAX_ROUNDS = 100;

async function writeWorkspace(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "agentscope-eval-"));
  try {
    for (const [path, content] of Object.entries(files)) {
      const target = resolve(root, path);
      if (!target.startsWith(root + sep))
        throw new EvalCaseError(`input.files: "${path}" is outside the workspace`);
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  return root;
}

/**
 * Runs one case on the agent the factory builds: every reply of the input in turn, answering each
 * confirmation from the case, recording the trajectory; then compares it with the case's recording.
 * Failures of the run are reported in `error`, never thrown, except a case the eval cannot start.
 */
export async function runCase(
  evalCase: EvalCase,
  factory: AgentFactory,
  options: RunCaseOptions = {},
): Promise<CaseRun> {
  const mode = options.mode ?? (evalCase.recording ? "replay" : "live");
  const recorded = evalCase.recording?.turns ?? [];
  if (mode === "replay" && !evalCase.recording) {
    throw new EvalCaseError(
      `case "${evalCase.id}" has no recording to replay; run it live or record it first`,
    );
  }
  const workspace = evalCase.input.files ? await writeWorkspace(evalCase.input.files) : undefined;
  let observed: ObservedModel | undefined;
  const setup: AgentSetup = {
    caseId: evalCase.id,
    mode,
    model(live) {
      if (mode === "replay") observed = new ObservedModel(replayModel(recorded));
      else if (live) observed = new ObservedModel(live);
      else
        throw new EvalCaseError(
          `case "${evalCase.id}": a live run needs the agent's model: call setup.model(yourModel)`,
        );
      return observed;
    },
  };
  if (workspace) setup.workspace = workspace;
  const builder = new TrajectoryBuilder();
  const started = performance.now();
  const replies: Msg[] = [];
  let error: string | undefined;
  try {
    const agent = await factory(setup);
    if (!observed)
      throw new EvalCaseError(
        `the agent factory did not build its agent with setup.model(...) (case "${evalCase.id}")`,
      );
    const state = evalCase.input.state
      ? structuredClone(evalCase.input.state)
      : agent.createState(`eval-${evalCase.id}`);
    const answers = new ConfirmAnswers(
      evalCase.id,
      evalCase.confirmations ?? [],
      toolCallsOf({ turns: recorded }),
    );
    const inputs: Msg[][] = [evalCase.input.messages, ...(evalCase.input.followUps ?? [])];
    for (const messages of inputs) {
      let input: Parameters<Agent["replyStream"]>[0] = messages;
      let replyId: string | undefined;
      for (let round = 0; ; round += 1) {
        if (round === MAX_ROUNDS)
          throw new EvalCaseError(
            `case "${evalCase.id}": more than ${MAX_ROUNDS} confirmations in one reply`,
          );
        let asked: RequireUserConfirmEvent | undefined;
        for await (const event of agent.replyStream(input, {
          state,
          ...(options.signal ? { signal: options.signal } : {}),
        })) {
          builder.observe(event);
          replyId ??= event.replyId;
          if (event.type === "REQUIRE_USER_CONFIRM" && !event.source?.includes("/")) asked = event;
        }
        const waiting = state.replyContext?.waitingFor;
        if (waiting === undefined) break;
        if (waiting !== "user_confirm") {
          throw new EvalCaseError(
            `case "${evalCase.id}": the agent waits for external execution, which an eval cannot give`,
          );
        }
        if (!asked) {
          throw new EvalCaseError(
            `case "${evalCase.id}": a sub-agent asks for confirmation; an eval answers the top-level agent only`,
          );
        }
        input = answers.answer(asked);
      }
      const reply = state.context.findLast((msg) => msg.id === replyId);
      if (reply) replies.push(reply);
    }
  } catch (caught) {
    if (caught instanceof EvalCaseError && !observed) throw caught;
    error = (caught as Error)?.message ?? String(caught);
  } finally {
    if (workspace) await rm(workspace, { recursive: true, force: true });
  }
  const trajectory = builder.build(observed?.calls ?? [], replies, performance.now() - started);
  const failedCall = observed?.calls.find((call) => call.error);
  error ??=
    failedCall?.error ?? (trajectory.finishedReason === "error" ? replies.at(-1)?.error?.message : undefined);
  const run: CaseRun = { caseId: evalCase.id, mode, trajectory };
  if (evalCase.recording) {
    const divergence = firstDivergence(recorded, trajectory.turns, options.ignore);
    if (divergence) run.divergence = divergence;
  }
  if (error !== undefined) run.error = error;
  return run;
}
