import type { SessionView, SubRun } from "../../../client/index.js";
import type {
  ContentBlock,
  DataBlock,
  HintBlock,
  Msg,
  ToolCallBlock,
  ToolResultBlock,
} from "../../../message/index.js";
import { h, prettyJson } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import { imageNode } from "./remote-image.js";
import { safeUrl } from "./safe-url.js";

/** Details the user opened or closed by hand, by block id: their choice survives re-rendering. */
const openByUser = new Map<string, boolean>();

function collapsible(
  id: string,
  className: string,
  title: string,
  defaultOpen: boolean,
  body: Node,
): HTMLDetailsElement {
  const details = h("details", { class: className, "data-block": id }, h("summary", {}, title), body);
  details.open = openByUser.get(id) ?? defaultOpen;
  details.addEventListener("toggle", () => openByUser.set(id, details.open));
  return details;
}

function dataNode(block: DataBlock): Node {
  const source = block.source;
  const type = source.mediaType ?? "";
  const image = type.startsWith("image/");
  const label = block.name ?? (type || "attachment");
  const href =
    source.type === "url"
      ? safeUrl(source.url, { image })
      : image
        ? safeUrl(`data:${type};base64,${source.data}`, { image: true })
        : undefined;
  const unshown = () => h("span", { class: "attachment" }, `${label} (${type || "file"})`);
  if (href === undefined) return unshown();
  // Inline when local (same origin, data:, blob:), else a link that loads nothing until clicked.
  if (image) return imageNode(href, block.name ?? "image", { class: "media" }) ?? unshown();
  return h("a", { class: "attachment", href, target: "_blank", rel: "noopener noreferrer" }, label);
}

/** Citations a text block carries (RAG): a numbered list linked to their sources. */
function citationsNode(block: ContentBlock): Node | undefined {
  const citations = (block as { citations?: unknown }).citations;
  if (!Array.isArray(citations) || citations.length === 0) return undefined;
  const items = citations.map((raw, index) => {
    const citation = (raw ?? {}) as Record<string, unknown>;
    const title = String(citation.title ?? citation.url ?? `source ${index + 1}`);
    const url = typeof citation.url === "string" ? safeUrl(citation.url) : undefined;
    const label = `[${index + 1}] ${title}`;
    return h(
      "li",
      {},
      url ? h("a", { href: url, target: "_blank", rel: "noopener noreferrer" }, label) : label,
      typeof citation.citedText === "string" ? h("q", {}, citation.citedText.slice(0, 200)) : undefined,
    );
  });
  return h("ol", { class: "citations", "aria-label": "Sources" }, ...items);
}

const RESULT_LABELS: Record<string, string> = {
  running: "running",
  success: "done",
  error: "error",
  denied: "denied",
  interrupted: "interrupted",
};
const CALL_LABELS: Record<string, string> = {
  pending: "preparing",
  asking: "needs approval",
  allowed: "approved",
  submitted: "waiting for an external result",
  finished: "done",
};

function outputText(result: ToolResultBlock): { text: string; media: DataBlock[] } {
  if (typeof result.output === "string") return { text: result.output, media: [] };
  const text = result.output.map((part) => (part.type === "text" ? part.text : "")).join("");
  return { text, media: result.output.filter((part): part is DataBlock => part.type === "data") };
}

function toolCard(call: ToolCallBlock, result: ToolResultBlock | undefined, subRuns: SubRun[]): HTMLElement {
  const state = result ? result.state : call.state;
  const label = result
    ? (RESULT_LABELS[result.state] ?? result.state)
    : (CALL_LABELS[call.state] ?? call.state);
  const card = h(
    "div",
    { class: "tool", "data-state": state, "data-call": call.id },
    h(
      "div",
      { class: "tool-head" },
      h("span", { class: "tool-name" }, call.name),
      ...(call.executedBy === "provider"
        ? [h("span", { class: "tool-by" }, `run by ${call.provider ?? "the provider"}`)]
        : []),
      h("span", { class: "badge" }, label),
    ),
    collapsible(
      `${call.id}:args`,
      "tool-args",
      "Arguments",
      !result,
      h("pre", { class: "tool-args-body" }, prettyJson(call.input)),
    ),
  );
  if (result) {
    const output = outputText(result);
    card.append(h("pre", { class: "tool-output" }, output.text));
    if (output.media.length > 0)
      card.append(h("div", { class: "tool-media" }, ...output.media.map(dataNode)));
  }
  for (const run of subRuns) {
    // An exposed sub-agent that streams nothing here lives in its own session (its card links it).
    if (run.sessionId && run.msg.content.length === 0) continue;
    const body = h("div", { class: "subrun-body" });
    renderBlocks(body, run.msg, [], false);
    const finished = run.msg.finishedReason ? "" : " (running)";
    card.append(
      collapsible(
        `${run.replyId}:subrun`,
        "subrun",
        `Sub-agent ${run.source}${finished}`,
        !run.msg.finishedReason,
        body,
      ),
    );
  }
  return card;
}

function renderBlocks(target: HTMLElement, msg: Msg, subRuns: SubRun[], live: boolean): void {
  const results = new Map<string, ToolResultBlock>();
  for (const block of msg.content) if (block.type === "tool_result") results.set(block.id, block);
  const shown = msg.content.filter((b) => b.type !== "tool_result" && b.type !== "hint");
  shown.forEach((block, index) => {
    const streaming = live && index === shown.length - 1;
    switch (block.type) {
      case "text": {
        const node = h("div", { class: "text markdown", "data-block": block.id });
        if (msg.role === "user") node.textContent = block.text;
        else renderMarkdown(node, block.text);
        target.append(node);
        const cites = citationsNode(block);
        if (cites) target.append(cites);
        break;
      }
      case "thinking": {
        const text = block.thinking || (block.redactedData ? "(redacted by the provider)" : "");
        target.append(
          collapsible(
            block.id,
            "thinking",
            streaming ? "Thinking…" : "Thought",
            streaming,
            h("div", { class: "thinking-body" }, text),
          ),
        );
        break;
      }
      case "tool_call":
        target.append(
          toolCard(
            block,
            results.get(block.id),
            subRuns.filter((run) => run.toolCallId === block.id),
          ),
        );
        break;
      case "data":
        target.append(dataNode(block));
        break;
    }
  });
}

const FINISH_NOTES: Record<string, string> = {
  interrupted: "Interrupted.",
  exceed_max_iters: "Stopped: the agent reached its step limit.",
};

/**
 * The hints a reply was given (RAG excerpts, remembered facts), collapsed: what the agent read
 * besides the conversation. `extra` are hints known from the event log (a hint the agent drops from
 * the stored reply when it ends), merged with those still in the Msg by block id.
 */
function hintsNode(msg: Msg, extra: readonly HintBlock[]): HTMLElement | undefined {
  const hints = new Map<string, HintBlock>();
  for (const hint of extra) hints.set(hint.id, hint);
  for (const block of msg.content) if (block.type === "hint") hints.set(block.id, block);
  if (hints.size === 0) return undefined;
  const list = [...hints.values()];
  return collapsible(
    `${msg.id}:hints`,
    "hints",
    list.length === 1 ? "Context the agent was given" : `Context the agent was given (${list.length} hints)`,
    false,
    h(
      "div",
      { class: "hints-body" },
      ...list.map((hint) => h("div", { class: "hint", "data-hint": hint.id }, hint.text)),
    ),
  );
}

/**
 * One message as an element (rebuilt when its Msg changes; Msgs are immutable in the view), with
 * the hints that informed it (`hints`: those known from the event log) collapsed on top, and, when
 * `named`, the name of the agent that wrote it.
 */
export function messageNode(
  msg: Msg,
  view: SessionView,
  hints: readonly HintBlock[] = [],
  /** Says which agent wrote it (the session's agents changed by a handoff before it). */
  named = false,
): HTMLElement {
  const live = view.running && msg.id === view.activeReplyId;
  const body = h("div", { class: "msg-body" });
  const context = msg.role === "assistant" ? hintsNode(msg, hints) : undefined;
  if (context) body.append(context);
  renderBlocks(body, msg, view.subRuns, live);
  const foot = h("div", { class: "msg-foot" });
  if (msg.error)
    foot.append(h("div", { class: "error" }, `${msg.error.type ?? "error"}: ${msg.error.message}`));
  const note = msg.finishedReason ? FINISH_NOTES[msg.finishedReason] : undefined;
  if (note) foot.append(h("div", { class: "note" }, note));
  if (live) foot.append(h("div", { class: "working" }, "Working"));
  if (msg.usage && !live)
    foot.append(
      h("div", { class: "usage" }, `${msg.usage.inputTokens} in · ${msg.usage.outputTokens} out tokens`),
    );
  // A finished reply can become an eval case (test-case-dialog.ts; main.ts listens for the click).
  if (msg.role === "assistant" && msg.finishedReason && !live)
    foot.append(
      h("button", { type: "button", class: "link save-case", "data-save-case": msg.id }, "Save as test case"),
    );
  return h(
    "article",
    { class: `msg ${msg.role}`, "data-id": msg.id, "aria-label": msg.role === "user" ? "You" : msg.name },
    named && msg.role === "assistant" ? h("div", { class: "msg-agent" }, msg.name) : undefined,
    body,
    foot,
  );
}

/** Sub-agent runs not tied to any tool call, shown after the messages. */
export function looseSubRuns(view: SessionView): HTMLElement[] {
  return view.subRuns
    .filter((run) => run.toolCallId === undefined)
    .map((run) => {
      const body = h("div", { class: "subrun-body" });
      renderBlocks(body, run.msg, [], false);
      return collapsible(`${run.replyId}:subrun`, "subrun", `Sub-agent ${run.source}`, false, body);
    });
}
