import { applySessionEvent, emptySessionView, type SessionView, type SubRun } from "../../../client/index.js";
import type { AgentEvent } from "../../../event/types.js";
import { client, state } from "./console-state.js";

/**
 * The sub-agent runs of the log added to the view (the stored messages hold only the top-level
 * replies, so after a reload the nesting comes from the events): runs the view already has win.
 */
function withLoggedSubRuns(view: SessionView, events: AgentEvent[]): SessionView {
  let folded = emptySessionView();
  for (const event of events)
    if (event.type === "SUBAGENT_EXPOSED" || event.source?.includes("/"))
      folded = applySessionEvent(folded, event);
  const known = new Set(view.subRuns.map((run) => run.replyId));
  const added: SubRun[] = folded.subRuns.filter((run) => !known.has(run.replyId));
  return added.length === 0 ? view : { ...view, subRuns: [...added, ...view.subRuns] };
}

/**
 * Reads the open session's event log up to now (once per session), so the timeline also shows what
 * happened before this page, and adds its sub-agent runs to the view. Says whether the view gained
 * runs (the tool cards that host them are then drawn again); false when nothing was read.
 */
export async function loadLog(): Promise<boolean> {
  const current = state.current;
  if (!current || state.log?.sessionId === current.sessionId) return false;
  const { lastEventId } = await client.status(current.sessionId);
  const events: AgentEvent[] = [];
  if (lastEventId > 0) {
    const stream = client.events(current.sessionId, { after: 0 });
    for await (const event of stream) {
      events.push(event);
      if (stream.lastEventId >= lastEventId) stream.close();
    }
  }
  if (state.current?.sessionId !== current.sessionId) return false;
  state.log = { sessionId: current.sessionId, events };
  const view = withLoggedSubRuns(state.view, events);
  if (view === state.view) return false;
  state.view = view;
  return true;
}
