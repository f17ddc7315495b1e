import type { PendingApproval } from "../../../client/index.js";
import {
  changeAgainst,
  diffLines,
  type FileChange,
  type ProposedChange,
  proposedChangeOf,
  withContext,
} from "./diff.js";
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

/**
 * Reads a file of the session's workspace for a diff: its text, undefined when it does not exist,
 * null when it cannot be read (no workspace, a path outside it, a binary file, an error).
 */
export type ReadWorkspaceFile = (path: string) => Promise<string | null | undefined>;

const BASIS_NOTES: Record<NonNullable<FileChange["basis"]>, string> = {
  file: "against the file as it is now",
  "new file": "new file",
  snippet: "the call's text only (the file could not be read)",
};

function diffPreview(change: FileChange): HTMLElement {
  const lines = diffLines(change.before, change.after);
  const added = lines.filter((l) => l.kind === "added").length;
  const removed = lines.filter((l) => l.kind === "removed").length;
  const note = change.basis ? ` (${BASIS_NOTES[change.basis]})` : "";
  const sign = { added: "+", removed: "-", same: " ", skipped: "…" } as const;
  return h(
    "figure",
    { class: "diff", "data-basis": change.basis },
    h("figcaption", {}, `${change.path}: +${added} −${removed}${note}`),
    h(
      "pre",
      { class: "diff-body", "aria-label": `Changes to ${change.path}` },
      ...withContext(lines).map((line) =>
        h("span", { class: `diff-${line.kind}` }, `${sign[line.kind]} ${line.text}\n`),
      ),
    ),
  );
}

/** The change a waiting call proposes: the tool's own preview when the ask carries one, else its arguments. */
function proposedChange(call: PendingApproval, input: unknown, edited: boolean): ProposedChange | undefined {
  const declared = edited ? undefined : call.preview;
  if (declared && typeof declared.path === "string" && typeof declared.after === "string") {
    if (typeof declared.before === "string")
      return {
        kind: "edit",
        path: declared.path,
        oldText: declared.before,
        newText: declared.after,
        replaceAll: false,
      };
    return { kind: "write", path: declared.path, content: declared.after };
  }
  return proposedChangeOf(input);
}

/**
 * A card per waiting call: the reason, the arguments in an editable field (checked as JSON), a
 * diff preview for file writes and edits (against the file as `readFile` reads it now: a write of
 * a missing file says "new file"), and Approve / Deny / Always allow. "Always allow" is
 * offered only when the ask suggested rules (never on a safety ask) and sends exactly the rules it
 * shows; the agent refuses any other rule. An edited call is decided again by the agent before it
 * runs (it may be refused or asked again). Keyboard: Ctrl+Enter
 * (⌘+Enter) approves from anywhere in the card; A approves and D denies when the card itself has
 * focus. `decide` gets one decision per call.
 */
export function approvalCard(
  call: PendingApproval,
  decide: (decision: ApprovalDecision) => void,
  readFile?: ReadWorkspaceFile,
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
  const files = new Map<string, Promise<string | null | undefined>>();
  const fileText = (path: string) => {
    let read = files.get(path);
    if (!read) {
      read = readFile ? readFile(path).catch(() => null) : Promise.resolve(null);
      files.set(path, read);
    }
    return read;
  };
  let shown = 0;
  const refresh = () => {
    const parsed = parseArgs(editor.value);
    problem.textContent = parsed.error ?? "";
    approve.disabled = parsed.error !== undefined;
    if (always) always.disabled = parsed.error !== undefined;
    const change = parsed.error ? undefined : proposedChange(call, parsed.value, edited() !== undefined);
    const ticket = ++shown;
    if (!change) {
      preview.replaceChildren();
      return;
    }
    // The call's own text at once; the diff against the file when it has been read.
    preview.replaceChildren(diffPreview({ ...changeAgainst(change, null), basis: undefined }));
    void fileText(change.path).then((current) => {
      if (ticket === shown) preview.replaceChildren(diffPreview(changeAgainst(change, current)));
    });
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
