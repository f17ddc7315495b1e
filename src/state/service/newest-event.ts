import type { EventLog, LoggedEvent } from "./service-backend.js";

/** The log's newest event (undefined when the log is empty): one read where the log has `last`. */
export async function newestEvent(events: EventLog, sessionId: string): Promise<LoggedEvent | undefined> {
  if (events.last) return events.last(sessionId);
  const seq = await events.lastSeq(sessionId);
  if (seq === 0) return undefined;
  const [newest] = await events.read(sessionId, seq - 1, 1);
  return newest;
}
