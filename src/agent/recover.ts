import { type AgentEvent, applyEventInPlace, createEvent, type EventInit } from "../event/index.js";
import type { ErrorInfo, Msg } from "../message/index.js";
import type { AgentState, ReplyContext } from "../state/index.js";
import { unknownOutcomeEnding, unknownOutcomes } from "./effects.js";
import { openCalls } from "./open-calls.js";

/** The note a cut-off call's result ends with (the service writes the same note when it closes a reply). */
export const CUT_OFF_NOTE =
  "[interrupted: the reply was cut off before this call finished; it was not run again]";

/**
 * The one rule for closing a reply cut off mid-run (a crash, a killed process, a consumer that
 * stopped reading), as the events that close it: a tool result still running gets the cut-off note
 * and ends `interrupted`; a call without a result gets an `interrupted` result with the note (it is
 * never run again); then REPLY_END `interrupted` (with `error` when given), unless the reply has
 * ended already. Finished results are kept. The agent's recovery folds these events into the stored
 * Msg; the service logs the same list (after ending the blocks its log left open). A stored Msg has
 * no open blocks, so none are ended here.
 *
 * Except for effects: a call whose effect had started (`reply.effects`, stored before a tool that is
 * not read-only runs) has an unknown outcome, and the reply does not end: it pauses to run the
 * effect again, asked (or, for an idempotent tool, by the runtime) with the same key
 * (`unknownOutcomeEnding`, which sets `reply.waitingFor`).
 */
export function cutOffEnding(
  msg: Pick<Msg, "id" | "content" | "finishedReason">,
  error?: ErrorInfo,
  reply?: ReplyContext,
  mode = "default",
): AgentEvent[] {
  const replyId = msg.id;
  const events: AgentEvent[] = [];
  const unknown = msg.finishedReason === undefined ? unknownOutcomes(msg, reply) : [];
  const started = new Set(unknown.map((call) => call.id));
  for (const block of msg.content) {
    if (block.type !== "tool_result" || block.state !== "running" || started.has(block.id)) continue;
    const toolCallId = block.id;
    const empty = block.output === "" || (Array.isArray(block.output) && block.output.length === 0);
    events.push(
      createEvent("TOOL_RESULT_TEXT_DELTA", {
        replyId,
        toolCallId,
        delta: empty ? CUT_OFF_NOTE : `\n${CUT_OFF_NOTE}`,
      }),
      createEvent("TOOL_RESULT_END", { replyId, toolCallId, state: "interrupted" }),
    );
  }
  for (const call of openCalls(msg)) {
    if (started.has(call.id)) continue;
    const toolCallId = call.id;
    events.push(
      createEvent("TOOL_RESULT_START", { replyId, toolCallId, toolCallName: call.name }),
      createEvent("TOOL_RESULT_TEXT_DELTA", { replyId, toolCallId, delta: CUT_OFF_NOTE }),
      createEvent("TOOL_RESULT_END", { replyId, toolCallId, state: "interrupted" }),
    );
  }
  if (unknown.length > 0 && reply) {
    events.push(...unknownOutcomeEnding(msg, reply, unknown, mode));
    return events;
  }
  if (msg.finishedReason === undefined) {
    const end: EventInit<"REPLY_END"> = { replyId, finishedReason: "interrupted" };
    if (error) end.error = error;
    events.push(createEvent("REPLY_END", end));
  }
  return events;
}

/**
 * Before the next reply, a reply cut off mid-flight is closed by the one rule (`cutOffEnding`), its
 * events folded into the stored Msg. A reply that is paused on purpose is left alone; one whose
 * effects' outcome is unknown becomes such a pause (see `cutOffEnding`; `retryAnswer` gives the
 * runtime's answer for idempotent retries). Returns whether anything was repaired.
 */
export function recoverCutOffReply(state: AgentState): boolean {
  const reply = state.replyContext;
  if (!reply || reply.waitingFor) return false;
  const msg = state.context.findLast((m) => m.id === reply.replyId);
  if (!msg) {
    delete state.replyContext;
    return true;
  }
  for (const event of cutOffEnding(msg, undefined, reply, state.permission.mode))
    applyEventInPlace(msg, event);
  if (!reply.waitingFor) delete state.replyContext;
  return true;
}
