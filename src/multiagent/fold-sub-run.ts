import { type AgentEvent, foldEvents, type SubagentExposedEvent } from "../event/index.js";
import type { Msg } from "../message/index.js";

/** The sub-runs announced in a stream (SUBAGENT_EXPOSED), in order. */
export function subRunsIn(events: Iterable<AgentEvent>): SubagentExposedEvent[] {
  const found: SubagentExposedEvent[] = [];
  for (const event of events) if (event.type === "SUBAGENT_EXPOSED") found.push(event);
  return found;
}

/**
 * Folds one sub-run out of a parent's stream into its assistant Msg, picked by its reply id or by
 * its `source` path (the first run with that path). Returns undefined when the stream has no such run.
 * The parent's own fold (`foldEvents`) ignores sub-run events: they carry another replyId.
 */
export function foldSubRun(
  events: Iterable<AgentEvent>,
  which: { replyId: string } | { source: string },
): Msg | undefined {
  const list = [...events];
  let replyId: string | undefined;
  if ("replyId" in which) replyId = which.replyId;
  else {
    replyId = list.find((e) => e.type === "REPLY_START" && e.source === which.source)?.replyId;
  }
  if (replyId === undefined) return undefined;
  return foldEvents(list.filter((e) => e.replyId === replyId && e.type !== "SUBAGENT_EXPOSED"));
}
