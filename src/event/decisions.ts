import type { Msg } from "../message/index.js";
import type { DecisionEvent, DecisionRecord } from "./types.js";

/** The record a DECISION event carries: the event without its `type` and `metadata`. */
export function recordOf(event: DecisionEvent): DecisionRecord {
  const { type: _type, metadata: _metadata, ...record } = event;
  return record;
}

/**
 * The decision records the replies in `messages` keep (`metadata.decisions`, folded from DECISION
 * events), oldest first: `decisionsOf(agent.state.context)` is the session's audit trail in code.
 * A sub-agent's records stay in its own replies (their events carry `source`); the service's
 * `GET /v1/sessions/:id/decisions` reads them from the event log, nested ones included.
 */
export function decisionsOf(messages: readonly Msg[]): DecisionRecord[] {
  const out: DecisionRecord[] = [];
  for (const msg of messages) {
    const kept = msg.role === "assistant" ? msg.metadata?.decisions : undefined;
    if (Array.isArray(kept)) out.push(...(kept as DecisionRecord[]));
  }
  return out;
}

/** The records among `events` (a recorded stream or a session's log), in order, nested runs' included. */
export function decisionsIn(events: Iterable<{ type: string }>): DecisionRecord[] {
  const out: DecisionRecord[] = [];
  for (const event of events) if (event.type === "DECISION") out.push(recordOf(event as DecisionEvent));
  return out;
}
