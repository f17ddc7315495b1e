import type { AgentEvent } from "../../../../event/types.js";
import type { Cost } from "../../../../message/cost.js";
import { h } from "../dom.js";
import { usdText } from "./cost-view.js";
import { type TraceSpan, traceSpans } from "./trace-spans.js";

const ms = (value: number) => (value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(2)} s`);

/** A span's tokens and cost, when it had a model call: "120+40 tok · $0.00021". */
const costOf = (span: TraceSpan) => {
  const p = span.payload as { inputTokens?: number; outputTokens?: number; cost?: Cost };
  if (p.inputTokens === undefined) return "";
  return `${p.inputTokens}+${p.outputTokens ?? 0} tok${p.cost ? ` · ${usdText(p.cost)}` : ""}`;
};

const KIND_NAMES: Record<TraceSpan["kind"], string> = {
  reply: "Reply",
  model: "Model call",
  compression: "Compression",
  tool: "Tool",
  pause: "Waiting for a person",
};

/**
 * The trace of a session as a waterfall: one bar per span (replies, model calls, tool runs,
 * sub-agent runs nested under their call, pauses for a person, compression), to scale, with the
 * span's payload on click and a search over labels and payloads. Built from the event log, so it
 * shows past replies and replies from before a restart alike.
 */
export function traceWaterfall(events: readonly AgentEvent[]): HTMLElement {
  const spans = traceSpans(events);
  if (spans.length === 0)
    return h("p", { class: "note" }, "No events yet: send a message and its trace shows here.");
  const last =
    events.length > 0 ? Date.parse(events.at(-1)!.createdAt) - Date.parse(events[0]!.createdAt) : 0;
  const total = Math.max(1, last, ...spans.map((s) => s.end ?? s.start));
  const detail = h(
    "pre",
    { class: "studio-json trace-detail", tabindex: "0", "aria-label": "Span details" },
    "Select a span to see what it carried.",
  );
  const search = h("input", {
    type: "search",
    class: "trace-search",
    placeholder: "Search spans (tool, model, text…)",
    "aria-label": "Search spans",
  });
  const rows = spans.map((span) => {
    const left = (span.start / total) * 100;
    const width = Math.max(0.5, (((span.end ?? total) - span.start) / total) * 100);
    const took = span.end === undefined ? "open" : ms(span.end - span.start);
    const haystack = `${span.label} ${span.kind} ${JSON.stringify(span.payload)}`.toLowerCase();
    // Geometry through the CSSOM: the console's CSP allows no inline style attribute.
    const bar = h("span", { class: "trace-bar" });
    bar.style.left = `${left.toFixed(2)}%`;
    bar.style.width = `${width.toFixed(2)}%`;
    const row = h(
      "button",
      {
        type: "button",
        class: "trace-row",
        "data-kind": span.kind,
        "data-span": span.id,
        "data-label": span.label,
      },
      h(
        "span",
        { class: "trace-label" },
        h("span", { class: "visually-hidden" }, `${KIND_NAMES[span.kind]}: `),
        span.label,
      ),
      h("span", { class: "trace-track" }, bar),
      h(
        "span",
        { class: "trace-took" },
        took,
        costOf(span) ? h("span", { class: "trace-cost" }, costOf(span)) : null,
      ),
    );
    row.style.setProperty("--depth", String(span.depth));
    row.addEventListener("click", () => {
      for (const other of rows) other.row.removeAttribute("aria-current");
      row.setAttribute("aria-current", "true");
      detail.textContent = JSON.stringify(
        {
          kind: span.kind,
          label: span.label,
          source: span.source,
          start: ms(span.start),
          took,
          ...span.payload,
        },
        null,
        2,
      );
    });
    return { row, haystack };
  });
  search.addEventListener("input", () => {
    const query = search.value.trim().toLowerCase();
    for (const { row, haystack } of rows) row.hidden = query !== "" && !haystack.includes(query);
  });
  const legend = h(
    "p",
    { class: "trace-legend" },
    ...Object.entries(KIND_NAMES).map(([kind, name]) => h("span", { "data-kind": kind }, name)),
  );
  return h(
    "div",
    { class: "trace" },
    h("p", { class: "note" }, `${spans.length} spans from ${events.length} events over ${ms(total)}.`),
    search,
    legend,
    h("div", { class: "trace-rows", role: "group", "aria-label": "Trace spans" }, ...rows.map((r) => r.row)),
    detail,
  );
}
