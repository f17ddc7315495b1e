import type { InputEvent } from "../event/index.js";
import { toErrorInfo } from "../message/index.js";
import type { WaitingFor } from "../state/index.js";
import { type ToolContext, ToolError } from "../tool/index.js";
import { abortReason, untilAborted } from "./abort.js";
import { effectKeyOf, storeEffect } from "./effects.js";
import { ReplyStateError } from "./errors.js";
import { type Admitted, decide } from "./gate.js";
import type { ToolCallOutcome, ToolCallRequest } from "./middleware.js";
import type { ReplyRun } from "./reply-run.js";
import { emitOutput } from "./result-events.js";
import { taskBoardOf } from "./task-events.js";
import { chunkToPart, isAsyncIterable, valueToParts } from "./tool-output.js";

/**
 * Runs one admitted call under its decision (it refuses arguments other than the decided ones) and
 * streams its result as events: TOOL_RESULT_START, the output as it comes, TOOL_RESULT_END. With
 * `resume`, continues a call whose nested run paused (its result is already open). A tool that is
 * not read-only starts only once its effect id (`ctx.idempotencyKey`) is stored (`storeEffect`).
 */
export async function runTool(run: ReplyRun, admitted: Admitted, resume?: InputEvent): Promise<void> {
  const { call, tool, decided, input: parsed } = admitted;
  if (call.input !== admitted.raw) {
    throw new ReplyStateError(
      `the arguments of ${call.name} call "${call.id}" changed after its permission decision`,
    );
  }
  const signal = run.options.signal ?? new AbortController().signal;
  if (!resume) run.emit("TOOL_RESULT_START", { toolCallId: call.id, toolCallName: call.name });
  let suspended: { replyIds: string[]; waitingFor: WaitingFor } | undefined;
  const ctx: ToolContext = {
    signal,
    sessionId: run.state.sessionId,
    replyId: run.msg.id,
    toolCallId: call.id,
    state: run.state.toolContext,
    permission: run.state.permission,
    requestStop: (reason?: string) => {
      run.stopReason = reason ?? `requested by ${tool.name}`;
    },
    source: run.options.source ?? run.config.name,
    emit: (event) => run.push(event),
    suspend: (pause) => {
      suspended = pause;
    },
    tasks: taskBoardOf(run),
    idempotencyKey: effectKeyOf(run, call),
  };
  if (resume) ctx.resume = resume;
  else await storeEffect(run, call, tool, ctx.idempotencyKey!);
  try {
    // A tool that ignores the signal is not waited for once the reply is interrupted.
    const value = await untilAborted(run.stages.callTool(call, tool, parsed, ctx, decided), signal);
    if (isAsyncIterable(value)) {
      const chunks = value[Symbol.asyncIterator]();
      try {
        while (!signal.aborted) {
          const next = await untilAborted(chunks.next(), signal);
          if (next.done) break;
          emitOutput(run, call.id, [chunkToPart(next.value)]);
        }
      } finally {
        if (signal.aborted) void chunks.return?.()?.catch(() => {});
      }
    } else {
      emitOutput(run, call.id, valueToParts(value));
    }
    if (signal.aborted) {
      emitOutput(run, call.id, [{ kind: "text", text: `\n[interrupted: ${abortReason(signal)}]` }]);
      run.emit("TOOL_RESULT_END", { toolCallId: call.id, state: "interrupted" });
      return;
    }
    if (suspended) {
      suspend(run, call.id, suspended);
      return;
    }
    if (tool === run.output.tool) run.output.recordCall(parsed);
    const state = resume?.type === "USER_INTERRUPT" ? "interrupted" : "success";
    run.emit("TOOL_RESULT_END", { toolCallId: call.id, state });
  } catch (error) {
    const state = signal.aborted ? "interrupted" : "error";
    if (!signal.aborted && ToolError.isInstance(error) && error.output !== undefined) {
      emitOutput(run, call.id, valueToParts(error.output));
    } else {
      const message = signal.aborted
        ? `[interrupted: ${abortReason(signal)}]`
        : `Error: ${toErrorInfo(error).message}`;
      emitOutput(run, call.id, [{ kind: "text", text: message }]);
    }
    run.emit("TOOL_RESULT_END", { toolCallId: call.id, state });
  }
}

/**
 * The end of the middleware tool chain. Arguments a middleware changed are decided again (a
 * changed call that is denied or would ask is an error, and the tool does not run); the tool runs
 * only under a decision for exactly the arguments it gets, as the call it was decided for.
 */
export async function runDecided(run: ReplyRun, request: ToolCallRequest): Promise<ToolCallOutcome> {
  const { call, tool, input, ctx } = request;
  let decided = request.decided;
  if (!decided.matches(input) && tool.name === decided.toolName) {
    const verdict = await decide(run, call, tool, input);
    if (verdict.behavior !== "allow") {
      throw new ToolError(
        `a middleware changed the arguments of this ${tool.name} call, and the changed call ${verdict.behavior === "deny" ? "is denied" : "would need a confirmation"}: ${verdict.decision.reason}`,
      );
    }
    decided = verdict.decided;
  }
  return decided.run({ id: call.id, name: tool.name }, input, (value) => tool.call(value, ctx));
}

/** Records that `toolCallId` waits on a paused nested run; answers to `replyIds` continue it. */
function suspend(
  run: ReplyRun,
  toolCallId: string,
  pause: { replyIds: string[]; waitingFor: WaitingFor },
): void {
  const reply = run.state.replyContext!;
  const suspended = reply.suspended ?? {};
  for (const id of pause.replyIds) suspended[id] = { toolCallId, waitingFor: pause.waitingFor };
  reply.suspended = suspended;
}
