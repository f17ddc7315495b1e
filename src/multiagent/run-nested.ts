import type { z } from "zod";
import type { ReplyInput } from "../agent/index.js";
import { createEvent, type InputEvent } from "../event/index.js";
import type { Msg } from "../message/index.js";
import type { AgentState } from "../state/index.js";
import { type ToolContext, ToolError } from "../tool/index.js";
import type { AgentLike } from "./agent-like.js";
import { narrowPermission } from "./narrow-permission.js";

/** Where a tool keeps the sessions of its nested runs in the parent's tool context (persisted with it). */
const SUB_RUNS_KEY = "agentscope.subRuns";

/** A nested run in flight, stored under the parent's tool call id until it ends. */
export interface StoredSubRun {
  agent: string;
  state: AgentState;
}

export interface NestedRunOptions {
  /** The name in the source path (`main/<name>`). */
  name: string;
  /** Stream the sub-run's events out through the parent's stream (default true). */
  expose?: boolean;
  structuredOutput?: z.ZodType;
  /** Builds the session of a new sub-run (its permission narrowed by the caller). */
  newState(): AgentState;
  /** The key of the run's session in the parent's tool context (default: the parent's tool call id). */
  key?: string;
  /** Keep the session after the run ends, so the next run with the same key continues it (a team member). */
  keep?: boolean;
}

/** What a nested run ended with: its reply, or a pause the parent took over. */
export type NestedOutcome = { paused: true } | { paused: false; reply: Msg };

/**
 * Runs (or, when `ctx.resume` is set, continues) one reply of `agent` inside the tool call `ctx`:
 * its events go out through `ctx.emit` with `source` set to `<ctx.source>/<name>` (SUBAGENT_EXPOSED
 * first), its session lives in the parent's tool context while it runs, a pause suspends the
 * parent's call (`ctx.suspend`), and its usage is rolled up into the parent's reply as a
 * MODEL_CALL_END with the parent's replyId.
 */
export async function runNested(
  agent: AgentLike,
  input: ReplyInput,
  ctx: ToolContext,
  options: NestedRunOptions,
): Promise<NestedOutcome> {
  const runs = subRunsOf(ctx);
  const key = options.key ?? ctx.toolCallId;
  const path = `${ctx.source ?? "agent"}/${options.name}`;
  let run = runs[key];
  if (ctx.resume && !run) {
    throw new ToolError(
      `the paused run of "${options.name}" for call "${ctx.toolCallId}" is gone from the state`,
    );
  }
  if (!run) {
    run = { agent: options.name, state: options.newState() };
    runs[key] = run;
  } else {
    // A continued run answers to its parent's permission as it is now: a deny rule added since binds it.
    run.state.permission = narrowPermission(run.state.permission, ctx.permission);
  }
  const expose = options.expose !== false;
  const stream = agent.replyStream(ctx.resume ? completeAnswer(ctx.resume, run.state) : input, {
    state: run.state,
    signal: ctx.signal,
    source: path,
    ...(options.structuredOutput ? { structuredOutput: options.structuredOutput } : {}),
  });
  let replyId: string | undefined;
  for await (const event of stream) {
    if (replyId === undefined) {
      replyId = event.replyId;
      if (event.type === "REPLY_START" && ctx.emit) {
        ctx.emit(
          createEvent("SUBAGENT_EXPOSED", {
            replyId,
            source: path,
            name: options.name,
            toolCallId: ctx.toolCallId,
            parentReplyId: ctx.replyId,
          }),
        );
      }
    }
    if (!expose || !ctx.emit) continue;
    if (event.source === undefined) event.source = path;
    ctx.emit(event);
  }
  const pending = run.state.replyContext;
  if (pending?.waitingFor && !ctx.signal.aborted) {
    if (!ctx.suspend) {
      throw new ToolError(`"${options.name}" paused for ${pending.waitingFor}, but its caller cannot pause`);
    }
    ctx.suspend({
      replyIds: [pending.replyId, ...Object.keys(pending.suspended ?? {})],
      waitingFor: pending.waitingFor,
    });
    return { paused: true };
  }
  if (!options.keep) delete runs[key];
  const reply = run.state.context.findLast((msg) => msg.id === replyId);
  if (!reply) throw new ToolError(`"${options.name}" produced no reply`);
  if (reply.usage && ctx.emit) {
    const usage = reply.usage;
    ctx.emit(
      createEvent("MODEL_CALL_END", {
        replyId: ctx.replyId,
        source: path,
        modelName: `agent:${options.name}`,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        ...(usage.cacheReadTokens !== undefined ? { cacheReadTokens: usage.cacheReadTokens } : {}),
        ...(usage.cacheWriteTokens !== undefined ? { cacheWriteTokens: usage.cacheWriteTokens } : {}),
        ...(reply.cost !== undefined ? { cost: reply.cost } : {}),
        metadata: { subRunUsage: true },
      }),
    );
  }
  return { paused: false, reply };
}

/**
 * An answer whose calls carry no name came from a client that only knew the ids (the service fills
 * name and arguments from the parent's own calls, not from a sub-run's): take both from the paused call.
 */
function completeAnswer(input: InputEvent, state: AgentState): InputEvent {
  if (input.type !== "USER_CONFIRM_RESULT" || input.confirmResults.every((a) => a.toolCall.name !== ""))
    return input;
  const msg = state.context.at(-1);
  const calls = new Map(
    (msg?.content ?? []).flatMap((b) => (b.type === "tool_call" ? [[b.id, b] as const] : [])),
  );
  const confirmResults = input.confirmResults.map((answer) => {
    const call = calls.get(answer.toolCall.id);
    if (answer.toolCall.name !== "" || !call) return answer;
    return { ...answer, toolCall: { ...answer.toolCall, name: call.name, input: call.input } };
  });
  return { ...input, confirmResults };
}

function subRunsOf(ctx: ToolContext): Record<string, StoredSubRun> {
  const existing = ctx.state[SUB_RUNS_KEY];
  if (existing && typeof existing === "object") return existing as Record<string, StoredSubRun>;
  const runs: Record<string, StoredSubRun> = {};
  ctx.state[SUB_RUNS_KEY] = runs;
  return runs;
}
