import { cutOffEnding } from "../../../agent/index.js";
import { type AgentEvent, createEvent, foldEvents } from "../../../event/index.js";
import type { AgentState } from "../../../state/index.js";
import type { LoggedEvent } from "../backend/types.js";

/** Why the service closed a reply, as its REPLY_END says. */
export const CUT_OFF_REASON =
  "the reply was cut off (the server running it stopped mid-run); what it streamed before is kept";

type Opened = { end: () => AgentEvent };

/**
 * The events that close a reply cut off mid-run: every block the log left open gets its END event,
 * then the agent's own rule for a cut-off reply (`cutOffEnding`: running results and calls without
 * one end `interrupted` with the cut-off note, then REPLY_END `interrupted`, here with CUT_OFF_REASON). `events` are the reply's logged events from its REPLY_START on; folding them
 * followed by the returned events gives the Msg to store. `state`: the session's stored state when
 * its reply is this one: calls whose effect had started pause the reply instead of ending it (its
 * reply context then waits for a confirmation).
 */
export function closingEvents(
  events: readonly AgentEvent[],
  replyId: string,
  state?: AgentState,
): AgentEvent[] {
  const open = new Map<string, Opened>();
  const base = { replyId };
  for (const event of events) {
    if (event.replyId !== replyId) continue;
    switch (event.type) {
      case "TEXT_BLOCK_START":
      case "THINKING_BLOCK_START":
      case "DATA_BLOCK_START": {
        const end = event.type.replace("_START", "_END") as
          | "TEXT_BLOCK_END"
          | "THINKING_BLOCK_END"
          | "DATA_BLOCK_END";
        const blockId = event.blockId;
        open.set(`block:${blockId}`, { end: () => createEvent(end, { ...base, blockId }) });
        break;
      }
      case "TEXT_BLOCK_END":
      case "THINKING_BLOCK_END":
      case "DATA_BLOCK_END":
        open.delete(`block:${event.blockId}`);
        break;
      case "TOOL_CALL_START": {
        const toolCallId = event.toolCallId;
        open.set(`call:${toolCallId}`, { end: () => createEvent("TOOL_CALL_END", { ...base, toolCallId }) });
        break;
      }
      case "TOOL_CALL_END":
        open.delete(`call:${event.toolCallId}`);
        break;
    }
  }
  const closing = [...open.values()].map((o) => o.end());
  const msg = foldEvents([...events, ...closing]) ?? { id: replyId, content: [] };
  const reply = state?.replyContext?.replyId === replyId ? state.replyContext : undefined;
  const error = { type: "aborted" as const, message: CUT_OFF_REASON };
  closing.push(...cutOffEnding(msg, error, reply, state?.permission.mode));
  return closing;
}

/** The last top-level reply in `logged` (its REPLY_START on), and whether the log has ended it. */
export function lastReply(
  logged: readonly LoggedEvent[],
): { replyId: string; events: AgentEvent[]; ended: boolean } | undefined {
  let start = -1;
  for (let i = logged.length - 1; i >= 0; i--) {
    const event = logged[i]!.event;
    if (event.type === "REPLY_START" && event.source === undefined) {
      start = i;
      break;
    }
  }
  if (start < 0) return undefined;
  const replyId = logged[start]!.event.replyId;
  const events = logged.slice(start).map((l) => l.event);
  const ended = events.some((e) => e.type === "REPLY_END" && e.replyId === replyId);
  return { replyId, events, ended };
}
