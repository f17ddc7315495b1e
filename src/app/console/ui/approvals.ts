import type { PendingApproval } from "../../../client/index.js";
import { diffLines, fileChangeOf } from "./diff.js";
import { h, prettyJson } from "./dom.js";

/** What the user decided for one waiting call. */
export interface ApprovalDecision {
  toolCallId: string;
  confirmed: boolean;
  /** Edited arguments (JSON text), when they differ from the model's. */
  input?: string;
  rules?: string[];
}

function parseArgs(text: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: `not valid JSON: ${(error as Error).message}` };
  }
}

function diffPreview(input: unknown): HTMLElement | undefined {
  const change = fileChangeOf(input);
  if (!change) return undefined;
  const lines = diffLines(change.before, change.after);
  const added = lines.filter((l) => l.kind === "added").length;
  const removed = lines.filter((l) => l.kind === "removed").length;
  return h(
    "figure",
    { class: "diff" },
    h("figcaption", {}, `${change.path}: +${added} −${removed}`),
    h(
      "pre",
      { class: "diff-body", "aria-label": `Changes to ${change.path}` },
      ...lines.map((line) =>
        h(
          "span",
          { class: `diff-${line.kind}` },
          `${line.kind === "added" ? "+" : line.kind === "removed" ? "-" : " "} ${line.text}\n`,
        ),
      ),
    ),
  );
}

/**
 * A card per waiting call: the reason, the arguments in an editable field (checked as JSON), a
 * diff preview for file writes and edits, and Approve / Deny / Always allow. "Always allow" is
 * offered only when the ask suggested rules (never on a safety ask) and sends exactly the rules it
 * shows; the agent refuses any other rule. An edited call is decided again by the agent before it
 * runs (it may be refused or asked again). Keyboard: Ctrl+Enter
 * (⌘+Enter) approves from anywhere in the card; A approves and D denies when the card itself has
 * focus. `decide` gets one decision per call.
 */
export function approvalCard(
  call: PendingApproval,
  decide: (decision: ApprovalDecision) => void,
): HTMLElement {
  const original = prettyJson(call.input);
  const titleId = `approval-title-${call.id}`;
  const editor = h("textarea", {
    class: "approval-args",
    rows: Math.min(12, original.split("\n").length + 1),
    spellcheck: "false",
    "aria-label": `Arguments of ${call.name} (editable JSON)`,
  });
  editor.value = original;
  const problem = h("div", { class: "approval-problem", role: "status" });
  const preview = h("div", { class: "approval-preview" });
  const refresh = () => {
    const parsed = parseArgs(editor.value);
    problem.textContent = parsed.error ?? "";
    approve.disabled = parsed.error !== undefined;
    if (always) always.disabled = parsed.error !== undefined;
    const diff = parsed.error ? undefined : diffPreview(parsed.value);
    preview.replaceChildren(...(diff ? [diff] : []));
  };
  const edited = () => {
    const parsed = parseArgs(editor.value);
    if (parsed.error) return undefined;
    const text = JSON.stringify(parsed.value);
    return text === JSON.stringify(parseArgs(call.input).value) ? undefined : text;
  };
  const send = (confirmed: boolean, rules?: string[]) => {
    const input = confirmed ? edited() : undefined;
    for (const button of [approve, deny, always]) if (button) button.disabled = true;
    decide({ toolCallId: call.id, confirmed, ...(input ? { input } : {}), ...(rules ? { rules } : {}) });
  };
  const rules = call.suggestedRules?.length ? [...call.suggestedRules] : undefined;
  const approve = h(
    "button",
    { type: "button", class: "primary", "aria-keyshortcuts": "Control+Enter A" },
    "Approve",
  );
  const deny = h("button", { type: "button", class: "danger", "aria-keyshortcuts": "D" }, "Deny");
  const always = rules
    ? h(
        "button",
        { type: "button", title: `Approve and allow from now on: ${rules.join(", ")}` },
        `Always allow ${rules.join(", ")}`,
      )
    : undefined;
  approve.addEventListener("click", () => send(true));
  deny.addEventListener("click", () => send(false));
  always?.addEventListener("click", () => send(true, rules));
  editor.addEventListener("input", refresh);

  const card = h(
    "section",
    { class: "approval", tabindex: "-1", "aria-labelledby": titleId, "data-call": call.id },
    h("h2", { id: titleId, class: "approval-title" }, `Approve ${call.name}?`),
    call.reason ? h("p", { class: "approval-reason" }, call.reason) : undefined,
    editor,
    problem,
    preview,
    h("div", { class: "approval-buttons" }, approve, deny, always),
    h("p", { class: "approval-keys" }, "Ctrl+Enter approves · with the card focused: A approves, D denies"),
  );
  card.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      if (!approve.disabled) send(true);
      return;
    }
    if (event.target !== card || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "a" || event.key === "A") {
      event.preventDefault();
      if (!approve.disabled) send(true);
    } else if (event.key === "d" || event.key === "D") {
      event.preventDefault();
      send(false);
    }
  });
  refresh();
  return card;
}
