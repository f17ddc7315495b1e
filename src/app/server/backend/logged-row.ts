import type { AgentEvent } from "../../../event/index.js";
import type { LoggedEvent } from "./types.js";

/** A row of an SQL event log (its seq and the event's JSON text) as a LoggedEvent. */
export function loggedRow(row: { seq: number | string; event: string }): LoggedEvent {
  return { seq: Number(row.seq), event: JSON.parse(row.event) as AgentEvent, json: row.event };
}
