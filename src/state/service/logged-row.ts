import type { AgentEvent } from "../../event/index.js";
import type { LoggedEvent } from "./service-backend.js";

/**
 * A logged event's stored text (a SQL row, a Redis entry, the memory log's copy) parsed back. What a
 * log holds may have been edited or damaged: text that is not JSON, or JSON that is not an event
 * (no string `type`), is an error naming the session and the event's seq, never a crash further on.
 */
export function parseLoggedEvent(sessionId: string, seq: number, json: string): AgentEvent {
  let event: unknown;
  try {
    event = JSON.parse(json);
  } catch (error) {
    throw new Error(
      `event ${seq} in the log of session "${sessionId}" is not JSON (${(error as Error).message}): the stored event was edited or damaged`,
    );
  }
  if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string") {
    throw new Error(
      `event ${seq} in the log of session "${sessionId}" is not an event (an object with a string "type"): the stored event was edited or damaged`,
    );
  }
  return event as AgentEvent;
}

/** Events logged after seq `before` (numbered `before + 1` on), with the JSON they were logged as. */
export function loggedAfter(before: number, events: AgentEvent[], json: string[]): LoggedEvent[] {
  return events.map((event, i) => ({ seq: before + i + 1, event, json: json[i]! }));
}

/** A row of an SQL event log (its seq and the event's JSON text) as a LoggedEvent. */
export function loggedRow(sessionId: string, row: { seq: number | string; event: string }): LoggedEvent {
  const seq = Number(row.seq);
  return { seq, event: parseLoggedEvent(sessionId, seq, row.event), json: row.event };
}
