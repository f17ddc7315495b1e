import { type Cost, sessionCost } from "../../../../message/cost.js";
import type { Msg } from "../../../../message/index.js";
import { h } from "../dom.js";

/** Dollars with enough digits for a cheap call ($0.000021). */
export function usdText(cost: Cost | undefined): string {
  if (!cost) return "no price";
  const digits = (usd: number) => (usd >= 1 ? usd.toFixed(2) : usd.toPrecision(2));
  if (cost.usd === null)
    return `at least $${digits(cost.pricedUsd)} (no price for ${(cost.unpriced ?? []).join(", ")})`;
  return `$${digits(cost.usd)}`;
}

const firstWords = (msg: Msg | undefined) => {
  const text = (msg?.content ?? [])
    .map((b) => (b.type === "text" ? b.text : ""))
    .join(" ")
    .trim();
  return text.length > 60 ? `${text.slice(0, 60)}…` : text || "(no text)";
};

/**
 * The cost page: each reply of the session with its tokens and what its model calls cost (`Msg.cost`,
 * priced by the agent's `pricing` table; docs/tracing-and-budgets.md, "Cost"), and the session's
 * total (`sessionCost`). Without a pricing table it says how to add one and still shows the tokens.
 */
export function costView(messages: readonly Msg[]): HTMLElement {
  const replies = messages
    .map((msg, i) => ({ msg, asked: messages.slice(0, i).findLast((m) => m.role === "user") }))
    .filter(({ msg }) => msg.role === "assistant");
  if (replies.length === 0)
    return h("p", { class: "note studio-empty" }, "No replies yet: send a message and its cost shows here.");
  const total = sessionCost(messages);
  const tokens = replies.reduce(
    (sum, { msg }) => ({
      input: sum.input + (msg.usage?.inputTokens ?? 0),
      output: sum.output + (msg.usage?.outputTokens ?? 0),
    }),
    { input: 0, output: 0 },
  );
  const cell = (text: string, attrs: Record<string, unknown> = {}) => h("td", attrs, text);
  return h(
    "div",
    { class: "cost-view" },
    h(
      "p",
      { class: "cost-total", "data-usd": String(total?.usd ?? "") },
      h("strong", {}, `Session: ${usdText(total)}`),
      ` · ${replies.length} repl${replies.length === 1 ? "y" : "ies"} · ${tokens.input} input and ${tokens.output} output tokens`,
    ),
    total
      ? null
      : h(
          "p",
          { class: "note studio-empty" },
          'No prices: give the agent a pricing table (`pricing: pricingTable()` from agentscope/model) and each model call is priced in US dollars; see docs/tracing-and-budgets.md, "Cost".',
        ),
    h(
      "table",
      { class: "cost-table" },
      h("caption", { class: "visually-hidden" }, "Cost per reply"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "Reply to"),
          h("th", { scope: "col" }, "Input"),
          h("th", { scope: "col" }, "Output"),
          h("th", { scope: "col" }, "Cost"),
        ),
      ),
      h(
        "tbody",
        {},
        ...replies.map(({ msg, asked }) =>
          h(
            "tr",
            { "data-reply": msg.id, "data-usd": String(msg.cost?.usd ?? "") },
            cell(firstWords(asked)),
            cell(String(msg.usage?.inputTokens ?? 0), { class: "num" }),
            cell(String(msg.usage?.outputTokens ?? 0), { class: "num" }),
            cell(usdText(msg.cost), { class: "num" }),
          ),
        ),
      ),
    ),
  );
}
