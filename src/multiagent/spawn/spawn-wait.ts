import { createEvent } from "../../event/index.js";
import { type ToolContext, ToolError } from "../../tool/index.js";
import { settleTask } from "./spawn-tasks.js";
import { outcomeText, type SpawnHandle, type SpawnRecord } from "./spawned-run.js";

/**
 * Waits up to `seconds` for a sub-agent's reply that a call just started (`agent_spawn`, or
 * `agent_message` to one that had ended), its events streamed nested through the call meanwhile:
 * ended in time, its result (an error result when it did not complete); not, a handle the model
 * reads while it keeps running (`promoted`). An abort of the parent's reply cancels it.
 */
export async function awaitOutcome(started: SpawnHandle, seconds: number, ctx: ToolContext) {
  forwardInto(ctx, started);
  const ended = await waitFor(started, seconds, ctx.signal);
  started.forward = undefined;
  if (!ended) {
    if (ctx.signal.aborted) {
      started.cancel("the parent's reply was interrupted");
      await started.done;
      return outcomeText(deliver(started.record, ctx));
    }
    return promoted(started, `it was not done after ${seconds} s`);
  }
  rollUpUsage(ctx, started.record);
  const record = deliver(started.record, ctx);
  if (record.status !== "completed") throw new ToolError(outcomeText(record));
  return record.result ?? "";
}

/** The outcome reached the parent (its task follows it). */
export function deliver(record: SpawnRecord, ctx: ToolContext): SpawnRecord {
  record.delivered = true;
  settleTask(ctx.tasks, record);
  return record;
}

export function promoted(run: SpawnHandle, why: string) {
  run.record.background = true;
  return {
    subagent_id: run.record.id,
    label: run.record.label,
    status: "running",
    note: `${why}; it keeps running. Its result will be given to you before a later step once it ends, or call agent_wait.`,
  };
}

/**
 * Streams the sub-agent's events through the parent's call while it waits (SUBAGENT_EXPOSED first,
 * unless an exposed one announced itself at its start). Each carries `metadata.taskId` (the task it
 * works on, else its sub-agent id) and `metadata.parentSessionId`, as the seeds have remote forwards.
 */
function forwardInto(ctx: ToolContext, run: SpawnHandle): void {
  const emit = ctx.emit;
  if (!emit) return;
  let exposed = run.record.exposed === true && run.firstReply !== undefined;
  const task = { taskId: run.record.taskId ?? run.record.id, parentSessionId: ctx.sessionId };
  run.forward = (event) => {
    if (!exposed && event.type === "REPLY_START") {
      exposed = true;
      expose(ctx, run, { replyId: event.replyId, source: event.source ?? "" });
    }
    emit({ ...event, metadata: { ...event.metadata, ...task } });
  };
}

/** SUBAGENT_EXPOSED for the sub-agent's reply, with the seeds' fields and the spawning call. */
export function expose(ctx: ToolContext, run: SpawnHandle, reply: { replyId: string; source: string }): void {
  const { id, template, agent, sessionId, label } = run.record;
  ctx.emit?.(
    createEvent("SUBAGENT_EXPOSED", {
      replyId: reply.replyId,
      source: reply.source,
      name: template,
      toolCallId: ctx.toolCallId,
      parentReplyId: ctx.replyId,
      subagentId: id,
      agentId: agent ?? template,
      sessionId,
      label,
      metadata: {
        subagentId: id,
        sessionId,
        label,
        taskId: run.record.taskId ?? id,
        parentSessionId: ctx.sessionId,
      },
    }),
  );
}

/** The sub-agent's usage, rolled up into the parent's reply (as subAgentTool does). */
function rollUpUsage(ctx: ToolContext, record: SpawnRecord): void {
  if (!record.usage || !ctx.emit) return;
  ctx.emit(
    createEvent("MODEL_CALL_END", {
      replyId: ctx.replyId,
      modelName: `agent:${record.template}`,
      inputTokens: record.usage.inputTokens,
      outputTokens: record.usage.outputTokens,
      metadata: { subRunUsage: true, subagentId: record.id },
    }),
  );
}

/** Whether the run ended within `seconds` (false on the timeout or when `signal` aborts first). */
function waitFor(run: SpawnHandle, seconds: number, signal: AbortSignal): Promise<boolean> {
  return waitForAny([run], seconds, signal).then((ended) => ended !== undefined);
}

export function waitForAny(
  runs: SpawnHandle[],
  seconds: number,
  signal: AbortSignal,
): Promise<SpawnHandle | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (value: SpawnHandle | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    };
    const onAbort = () => finish(undefined);
    const timer = setTimeout(() => finish(undefined), seconds * 1000);
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) finish(undefined);
    for (const run of runs) void run.done.then(() => finish(run));
  });
}
