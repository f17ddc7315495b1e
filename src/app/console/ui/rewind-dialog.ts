import type { CheckpointInfo } from "../../../protocol/time-travel-types.js";
import { h } from "./dom.js";

/** What the person is about to do, for the dialog's wording. */
export interface RewindPlan {
  title: string;
  action: string;
  target: CheckpointInfo;
  /** Memory writes made after the target on the session's line: they stay (a rewind does not undo them). */
  memoryWrites: CheckpointInfo["memoryWrites"];
}

/**
 * Asks before a rewind that will change the session's workspace files, saying which parts are
 * restored and which are not (docs/time-travel.md). Answers whether the person confirmed.
 */
export function confirmRewind(plan: RewindPlan): Promise<boolean> {
  const files = plan.target.workspace;
  const restored = [
    "the conversation as it was at this point",
    "permission grants (\u201calways allow\u201d answers) as they were",
    files?.status === "kept"
      ? `the workspace files as they were (${files.files} ${files.files === 1 ? "file" : "files"}): files written since are put back or removed`
      : undefined,
  ].filter((part): part is string => part !== undefined);
  const kept = [
    "anything the agent did outside the session: emails sent, requests made, databases written, processes started",
    plan.memoryWrites.length > 0
      ? `memory writes made since (${plan.memoryWrites.map((w) => `${w.command} ${w.path ?? ""}`.trim()).join(", ")})`
      : "memory writes made since",
    "other sessions' files",
  ];
  const go = h("button", { type: "button", class: "danger", "data-confirm": "rewind" }, plan.action);
  const cancel = h("button", { type: "button" }, "Cancel");
  const dialog = h(
    "dialog",
    { class: "test-case-dialog rewind-dialog", "aria-labelledby": "rewind-title" },
    h("h2", { id: "rewind-title" }, plan.title),
    h("h3", {}, "Restored"),
    h("ul", { class: "rewind-restored" }, ...restored.map((part) => h("li", {}, part))),
    h("h3", {}, "Not restored"),
    h("ul", { class: "rewind-kept" }, ...kept.map((part) => h("li", {}, part))),
    h(
      "p",
      { class: "note" },
      "The present is kept as a branch: you can switch back to it, or go back again.",
    ),
    h("div", { class: "test-case-buttons" }, cancel, go),
  );
  return new Promise((resolve) => {
    let answer = false;
    go.addEventListener("click", () => {
      answer = true;
      dialog.close();
    });
    cancel.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(answer);
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
