import type { AgentScopeClient, SessionEvalCase } from "../../../client/index.js";
import { h } from "./dom.js";
import { saveBlob } from "./save-blob.js";

type Scope = "reply" | "session";

/**
 * "Save as test case" on a finished reply: a dialog that asks the service for the reply (or the
 * whole conversation) as an eval case (`GET /v1/sessions/:id/eval-case`, recorded by
 * agentscope/eval's `caseFromSession`), shows it, and downloads it as a one-case JSONL dataset for
 * `agentscope eval`, or copies it to add to an existing dataset.
 */
export function openTestCaseDialog(client: AgentScopeClient, sessionId: string, replyId: string): void {
  let scope: Scope = "reply";
  let loaded: SessionEvalCase | undefined;
  let ticket = 0;
  const caseId = h("input", {
    id: "test-case-id",
    type: "text",
    spellcheck: "false",
    value: `reply-${replyId.slice(-8)}`,
    pattern: "[\\w.:\\-]{1,200}",
  });
  const preview = h("pre", { class: "test-case-json", tabindex: "0", "aria-label": "The eval case" });
  const status = h("p", { class: "note", role: "status" });
  const download = h("button", { type: "button", class: "primary", disabled: true }, "Download .jsonl");
  const copy = h("button", { type: "button", disabled: true }, "Copy JSONL");
  const close = h("button", { type: "button" }, "Close");
  const radio = (value: Scope, label: string) =>
    h(
      "label",
      {},
      h("input", {
        type: "radio",
        name: "test-case-scope",
        value,
        checked: value === scope,
        onchange: () => {
          scope = value;
          void load();
        },
      }),
      ` ${label}`,
    );
  const dialog = h(
    "dialog",
    { class: "test-case-dialog", "aria-labelledby": "test-case-title" },
    h("h2", { id: "test-case-title" }, "Save as test case"),
    h(
      "p",
      { class: "note" },
      "The recorded model turns, tool calls, permission decisions and your answers, as an eval case. Replay it with ",
      h("code", {}, "agentscope eval <file> --agent <module>"),
      " (docs/evals.md).",
    ),
    h(
      "fieldset",
      { class: "test-case-scope" },
      h("legend", {}, "Record"),
      radio("reply", "this reply"),
      radio("session", "the whole conversation"),
    ),
    h("label", { for: "test-case-id" }, "Case id"),
    caseId,
    preview,
    status,
    h("div", { class: "test-case-buttons" }, download, copy, close),
  );

  async function load(): Promise<void> {
    const mine = ++ticket;
    download.disabled = copy.disabled = true;
    loaded = undefined;
    status.textContent = "Recording…";
    try {
      const answer = await client.sessionEvalCase(sessionId, {
        ...(scope === "reply" ? { replyId } : {}),
        caseId: caseId.value.trim(),
      });
      if (mine !== ticket) return;
      loaded = answer;
      preview.textContent = JSON.stringify(answer.case, null, 2);
      status.textContent = `Ready: ${answer.fileName}`;
      download.disabled = copy.disabled = false;
    } catch (error) {
      if (mine !== ticket) return;
      preview.textContent = "";
      status.textContent = `Cannot record: ${(error as Error).message}`;
    }
  }

  caseId.addEventListener("change", () => void load());
  download.addEventListener("click", () => {
    if (loaded) saveBlob(new Blob([loaded.jsonl], { type: "application/x-ndjson" }), loaded.fileName);
  });
  copy.addEventListener("click", () => {
    if (!loaded) return;
    void navigator.clipboard.writeText(loaded.jsonl).then(
      () => {
        status.textContent = "Copied: paste it as a line of a .jsonl dataset.";
      },
      (error: unknown) => {
        status.textContent = `Cannot copy: ${(error as Error).message}`;
      },
    );
  });
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  void load();
}
