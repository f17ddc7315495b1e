import { createEvent, type EventInit } from "../event/index.js";
import type { ErrorInfo, FinishReason } from "../message/index.js";
import { openCalls } from "./open-calls.js";
import type { ReplyRun } from "./reply-run.js";
import { writeResult } from "./result-events.js";

/**
 * Finish: REPLY_END with `reason` (unless the reply has ended already) and the structured output
 * once there is one, every event handed to the reader, the reply context dropped, and the state saved
 * ("reply_end"). Every way a reply ends but a pause goes through here.
 */
export async function finish(run: ReplyRun, reason: FinishReason, error?: ErrorInfo): Promise<void> {
  if (run.msg.finishedReason === undefined) end(run, reason, error);
  await run.send();
  delete run.state.replyContext;
  await run.save("reply_end");
}

/** REPLY_END: the reply's last event. */
export function end(run: ReplyRun, reason: FinishReason, error?: ErrorInfo): void {
  const init: EventInit<"REPLY_END"> = { replyId: run.msg.id, finishedReason: reason };
  if (error) init.error = error;
  const result = run.output.result;
  if (result !== undefined) init.structuredOutput = result.value;
  run.push(createEvent("REPLY_END", init));
}

/** A stop request: calls not yet run are closed as interrupted, then REQUEST_STOP; the reply ends "stopped". */
export function stop(run: ReplyRun): "stopped" {
  const reason = run.stopReason ?? "stop requested";
  closeOpenCalls(run, "interrupted", `[not run: the reply was stopped: ${reason}]`);
  run.emit("REQUEST_STOP", run.stopMetadata ? { reason, metadata: run.stopMetadata } : { reason });
  return "stopped";
}

/** An interrupt: calls not yet run (or not finished) are closed as interrupted; the reply ends "interrupted". */
export function interrupt(run: ReplyRun, reason: string): "interrupted" {
  closeOpenCalls(run, "interrupted", `[interrupted: ${reason}] This call did not run to completion.`);
  return "interrupted";
}

/** Every call without a result gets one, written whole. */
export function closeOpenCalls(run: ReplyRun, state: "error" | "interrupted", text: string): void {
  for (const call of openCalls(run.msg)) writeResult(run, call, state, text);
}
