import type { Msg } from "../message/index.js";
import type { AgentState } from "../state/index.js";
import { openCalls } from "./open-calls.js";

/**
 * A reply cut off mid-flight (a crash, a killed process, a consumer that stopped reading) leaves
 * calls without results. Before the next reply, finished results are kept, every call without a
 * result is closed as `interrupted` (never run twice), and the reply is marked interrupted.
 * A reply that is paused on purpose is left alone. Returns whether anything was repaired.
 */
export function recoverCutOffReply(state: AgentState): boolean {
  const reply = state.replyContext;
  if (!reply || reply.waitingFor) return false;
  const msg = state.context.findLast((m) => m.id === reply.replyId);
  delete state.replyContext;
  if (!msg) return true;
  closeCutOffCalls(msg);
  msg.finishedReason ??= "interrupted";
  return true;
}

/** The note a cut-off call's result ends with (the service writes the same note when it closes a reply). */
export const CUT_OFF_NOTE =
  "[interrupted: the reply was cut off before this call finished; it was not run again]";

function closeCutOffCalls(msg: Msg): void {
  for (const block of msg.content) {
    if (block.type === "tool_result" && block.state === "running") {
      block.state = "interrupted";
      block.output =
        typeof block.output === "string"
          ? `${block.output}\n${CUT_OFF_NOTE}`.trimStart()
          : [...block.output, { type: "text", id: `${block.id}:cut`, text: CUT_OFF_NOTE }];
    }
    if (block.type === "tool_call") block.state = "finished";
  }
  for (const call of openCalls(msg)) {
    call.state = "finished";
    msg.content.push({
      type: "tool_result",
      id: call.id,
      name: call.name,
      output: CUT_OFF_NOTE,
      state: "interrupted",
    });
  }
}
