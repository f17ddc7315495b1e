import type { DecisionOutcome, DecisionRecord } from "../../../../protocol/decision-record.js";
import { h } from "../dom.js";

/** Each outcome in words, as the log reads it. */
const OUTCOME_NAMES: Record<DecisionOutcome, string> = {
  ask: "asked a person",
  approve: "approved",
  edit: "approved with edits",
  always_allow: "always allowed",
  deny: "denied",
  allow: "allowed by rule",
  external_result: "external result",
  expire: "expired unanswered",
  policy_refusal: "refused by policy",
  vote: "vote counted",
  outcome_unknown: "outcome unknown (stopped while running)",
  changed: "asked again (changed while paused)",
};

const when = (iso: string) => new Date(iso).toLocaleTimeString("en");
const shortJson = (text: string) => (text.length > 160 ? `${text.slice(0, 160)}…` : text);
const value = (v: unknown) => (v === undefined ? "(none)" : JSON.stringify(v));

/** What an edit changed: one line per JSON Pointer, before → after. */
function editDiff(record: DecisionRecord): HTMLElement | null {
  if (!record.diff || record.diff.length === 0) return null;
  return h(
    "ul",
    { class: "decision-diff", "aria-label": `What ${record.actor} changed` },
    ...record.diff.map((change) =>
      h(
        "li",
        { "data-path": change.path },
        h("code", {}, change.path || "/"),
        " ",
        h("del", {}, value(change.before)),
        " → ",
        h("ins", {}, value(change.after)),
      ),
    ),
  );
}

/** One record: when, who (and through what), which call, the outcome, the rule or reason, an edit's diff. */
function decisionItem(record: DecisionRecord): HTMLElement {
  const by = record.actor === "engine" ? "the engine" : record.actor;
  const facts = [
    record.rule ? `rule ${record.rule}` : "",
    record.policy ? `policy ${record.policy}` : "",
    record.approvers?.length ? `approvers ${record.approvers.join(", ")}` : "",
    record.rules?.length ? `remembers ${record.rules.join(", ")}` : "",
    record.expiresAt ? `expires ${when(record.expiresAt)}` : "",
    record.resolution ? `resolution ${record.resolution}` : "",
    record.changes?.length ? `changed: ${record.changes.join("; ")}` : "",
    `mode ${record.mode}`,
  ].filter(Boolean);
  return h(
    "li",
    {
      class: "decision",
      "data-outcome": record.outcome,
      "data-tool": record.toolName,
      "data-actor": record.actor,
    },
    h(
      "p",
      { class: "decision-head" },
      h("time", { datetime: record.createdAt }, when(record.createdAt)),
      " ",
      h("strong", { class: "decision-outcome" }, OUTCOME_NAMES[record.outcome]),
      " ",
      h("code", {}, record.toolName),
      ` by ${by} via ${record.channel}`,
      record.source ? h("span", { class: "meta" }, ` (${record.source})`) : null,
    ),
    h("p", { class: "meta" }, facts.join(" · ")),
    record.reason ? h("p", { class: "decision-reason" }, record.reason) : null,
    h(
      "pre",
      { class: "studio-json", tabindex: "0", "aria-label": `Input of ${record.toolName}` },
      shortJson(record.input),
    ),
    editDiff(record),
  );
}

/**
 * The decision page: the session's decision log (GET /v1/sessions/:id/decisions; docs/service.md),
 * newest first: who decided what and when, the outcome, the rule, mode and reason, and when a person
 * edited the arguments, what the edit changed. A filter keeps one outcome.
 */
export function decisionLog(records: readonly DecisionRecord[]): HTMLElement {
  if (records.length === 0)
    return h(
      "p",
      { class: "note studio-empty" },
      "No decisions yet: a record is kept for every permission outcome of this session's tool calls (an ask, an approval, an edit, a denial, a rule's allow). Give the agent a tool that asks (an `ask` rule, or a tool that is not read-only) and answer it; see docs/service.md, \"Decision records\".",
    );
  const outcomes = [...new Set(records.map((r) => r.outcome))];
  const filter = h(
    "select",
    { id: "decision-filter" },
    h("option", { value: "" }, `every outcome (${records.length})`),
    ...outcomes.map((o) =>
      h("option", { value: o }, `${OUTCOME_NAMES[o]} (${records.filter((r) => r.outcome === o).length})`),
    ),
  );
  const items = [...records].reverse().map(decisionItem);
  filter.addEventListener("change", () => {
    for (const item of items) item.hidden = filter.value !== "" && item.dataset.outcome !== filter.value;
  });
  const people = new Set(records.filter((r) => r.actor !== "engine").map((r) => r.actor));
  return h(
    "div",
    { class: "decision-log" },
    h(
      "p",
      { class: "note" },
      `${records.length} decision${records.length === 1 ? "" : "s"}, ${people.size} ${people.size === 1 ? "person" : "people"} answered.`,
    ),
    h("label", { for: "decision-filter" }, "Show "),
    filter,
    h("ol", { class: "decisions", "aria-label": "Decisions, newest first" }, ...items),
  );
}
