import type { AgentEvent } from "../../../event/types.js";
import { h } from "./dom.js";

/**
 * The CUSTOM event's name of a handoff (multiagent's `HANDOFF_EVENT`, spelled here so the console's
 * bundle does not carry the multiagent layer); its value is `{ from, to, reason? }`.
 */
const HANDOFF = "handoff";

/** A switch of the answering agent, after the reply that handed off. */
export interface HandoffMark {
  /** The reply that called `handoff` (the marker follows it). */
  replyId: string;
  from: string;
  to: string;
  reason?: string;
}

/**
 * The handoffs of a session's events (the stored log, then what streamed since), by the reply that
 * handed off. Events with a malformed value are skipped; sub-agents' runs (a `/` source) are theirs.
 */
export function handoffsOf(events: readonly AgentEvent[]): Map<string, HandoffMark> {
  const marks = new Map<string, HandoffMark>();
  for (const event of events) {
    if (event.type !== "CUSTOM" || event.name !== HANDOFF || event.source?.includes("/")) continue;
    const value = (event.value ?? {}) as { from?: unknown; to?: unknown; reason?: unknown };
    if (typeof value.to !== "string" || typeof value.from !== "string") continue;
    marks.set(event.replyId, {
      replyId: event.replyId,
      from: value.from,
      to: value.to,
      ...(typeof value.reason === "string" && value.reason ? { reason: value.reason } : {}),
    });
  }
  return marks;
}

/** The marker at the point of a switch: "Handed off to <agent>" (and why, when the agent said). */
export function handoffMarker(mark: HandoffMark): HTMLElement {
  return h(
    "div",
    {
      class: "handoff-marker",
      role: "note",
      "data-from": mark.from,
      "data-to": mark.to,
      "data-reply": mark.replyId,
    },
    h("span", { class: "handoff-text" }, `Handed off to ${mark.to}`),
    mark.reason ? h("span", { class: "handoff-reason" }, mark.reason) : undefined,
  );
}
