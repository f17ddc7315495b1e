import type { AgentEvent } from "../../../event/types.js";
import { h } from "./dom.js";

/** One row of the run timeline: when, what, and for spans (model calls, tools) how long. */
export interface TimelineRow {
  at: number;
  label: string;
  detail: string;
  durationMs?: number;
  source?: string;
}

const DELTAS = new Set([
  "TEXT_BLOCK_DELTA",
  "THINKING_BLOCK_DELTA",
  "TOOL_CALL_DELTA",
  "TOOL_RESULT_TEXT_DELTA",
  "TOOL_RESULT_DATA_DELTA",
  "DATA_BLOCK_DELTA",
]);

/**
 * The timeline of a session's events: every event with its time since the first one (deltas are
 * counted into their block's row instead of one row each), model calls with tokens and latency,
 * tool runs with their duration.
 */
export function timelineRows(events: AgentEvent[]): TimelineRow[] {
  if (events.length === 0) return [];
  const start = Date.parse(events[0]?.createdAt ?? "");
  const time = (event: AgentEvent) => Date.parse(event.createdAt) - start;
  const rows: TimelineRow[] = [];
  const modelStarts = new Map<string, number>();
  const toolStarts = new Map<string, number>();
  const blockRows = new Map<string, TimelineRow & { deltas: number }>();
  for (const event of events) {
    const source = event.source;
    const row = (label: string, detail: string, durationMs?: number) => {
      const entry: TimelineRow = { at: time(event), label, detail };
      if (durationMs !== undefined) entry.durationMs = durationMs;
      if (source) entry.source = source;
      rows.push(entry);
      return entry;
    };
    if (DELTAS.has(event.type)) {
      const key = "blockId" in event ? event.blockId : "toolCallId" in event ? event.toolCallId : "";
      const open = blockRows.get(`${event.type}:${key}`);
      if (open) {
        open.deltas += 1;
        open.detail = `${open.deltas} deltas`;
        open.durationMs = time(event) - open.at;
      } else {
        const entry = { ...row(event.type, "1 delta"), deltas: 1 };
        rows[rows.length - 1] = entry;
        blockRows.set(`${event.type}:${key}`, entry);
      }
      continue;
    }
    switch (event.type) {
      case "MODEL_CALL_START":
        modelStarts.set(event.replyId, time(event));
        row(
          "MODEL_CALL_START",
          event.modelName + (event.fallbackFrom ? ` (fallback from ${event.fallbackFrom})` : ""),
        );
        break;
      case "MODEL_CALL_END": {
        const began = modelStarts.get(event.replyId);
        row(
          "MODEL_CALL_END",
          `${event.modelName}: ${event.inputTokens} in · ${event.outputTokens} out tokens`,
          began === undefined ? undefined : time(event) - began,
        );
        break;
      }
      case "TOOL_RESULT_START":
        toolStarts.set(event.toolCallId, time(event));
        row("TOOL_RESULT_START", event.toolCallName);
        break;
      case "TOOL_RESULT_END": {
        const began = toolStarts.get(event.toolCallId);
        row("TOOL_RESULT_END", event.state, began === undefined ? undefined : time(event) - began);
        break;
      }
      case "TOOL_CALL_START":
        row("TOOL_CALL_START", event.toolCallName);
        break;
      case "REPLY_END":
        row("REPLY_END", event.finishedReason + (event.error ? `: ${event.error.message}` : ""));
        break;
      case "REQUIRE_USER_CONFIRM":
        row("REQUIRE_USER_CONFIRM", event.toolCalls.map((c) => c.name).join(", "));
        break;
      default:
        row(event.type, "");
    }
  }
  return rows;
}

const ms = (value: number) => (value < 1000 ? `${value} ms` : `${(value / 1000).toFixed(2)} s`);

/** The timeline as a table. */
export function timelineTable(events: AgentEvent[]): HTMLElement {
  const rows = timelineRows(events);
  if (rows.length === 0) return h("p", { class: "note" }, "No events yet in this session.");
  return h(
    "table",
    { class: "timeline" },
    h("caption", {}, `${events.length} events`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Time"),
        h("th", { scope: "col" }, "Event"),
        h("th", { scope: "col" }, "Detail"),
        h("th", { scope: "col" }, "Took"),
      ),
    ),
    h(
      "tbody",
      {},
      ...rows.map((row) =>
        h(
          "tr",
          { "data-event": row.label },
          h("td", {}, `+${ms(row.at)}`),
          h("td", {}, row.label, row.source ? h("span", { class: "source" }, ` ${row.source}`) : undefined),
          h("td", {}, row.detail),
          h("td", {}, row.durationMs === undefined ? "" : ms(row.durationMs)),
        ),
      ),
    ),
  );
}
