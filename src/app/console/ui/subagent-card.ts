import type { SessionInfo, SubagentProgress, SubagentStatus } from "../../../client/index.js";
import { h } from "./dom.js";

const STATUS_TEXT: Record<SubagentStatus, string> = {
  running: "running",
  completed: "done",
  failed: "failed",
  cancelled: "cancelled",
  paused: "paused",
  lost: "lost",
};

/** What a card shows, as a key: a card is drawn again only when it changed. */
const keyOf = (p: SubagentProgress) =>
  JSON.stringify([p.status, p.label, p.subagentId, p.background, p.sessionId, p.activity, p.result]);

/** The sessions the sidebar lists, and how to open one. */
export interface SessionOpener {
  sessions: readonly SessionInfo[];
  open(session: SessionInfo): void;
}

function card(progress: SubagentProgress, opener: SessionOpener): HTMLElement {
  const name = progress.label ?? progress.template ?? "sub-agent";
  const status = STATUS_TEXT[progress.status];
  const head = h(
    "div",
    { class: "subagent-head" },
    h("span", { class: "subagent-name" }, `Sub-agent ${name}`),
    progress.subagentId ? h("span", { class: "subagent-id" }, progress.subagentId) : undefined,
    progress.background ? h("span", { class: "subagent-bg" }, "background") : undefined,
    h("span", { class: "subagent-status", "data-status": progress.status }, status),
  );
  const node = h(
    "div",
    {
      class: "subagent-card",
      "data-status": progress.status,
      "data-subagent": progress.subagentId,
      role: "group",
      "aria-label": `Sub-agent ${name}: ${status}`,
    },
    head,
  );
  const line = progress.status === "running" ? progress.activity : (progress.result ?? progress.activity);
  if (line)
    node.append(
      h("div", { class: "subagent-activity" }, line.length > 280 ? `${line.slice(0, 279)}…` : line),
    );
  if (progress.sessionId) {
    const sessionId = progress.sessionId;
    const link = h(
      "a",
      { class: "subagent-open", href: `#/s/${encodeURIComponent(sessionId)}` },
      `Open ${name}'s conversation`,
    );
    link.addEventListener("click", (event) => {
      event.preventDefault();
      const listed = opener.sessions.find((s) => s.sessionId === sessionId);
      // Not listed (yet): open it by id; the service answers for it like for any session.
      opener.open(listed ?? { sessionId, owner: "", agent: "", createdAt: new Date().toISOString() });
    });
    node.append(link);
  }
  return node;
}

/**
 * Puts each spawned sub-agent's card (state, latest activity, a link to its conversation when it
 * was exposed) at the top of its `agent_spawn` call's card in `container`. Tool cards are rebuilt
 * when their message changes, so this runs after every render and draws only what changed.
 */
export function placeSubagentCards(
  container: HTMLElement,
  subagents: readonly SubagentProgress[],
  opener: SessionOpener,
): void {
  for (const progress of subagents) {
    const tool = container.querySelector<HTMLElement>(
      `.tool[data-call="${CSS.escape(progress.toolCallId)}"]`,
    );
    if (!tool) continue;
    const key = keyOf(progress);
    const existing = tool.querySelector<HTMLElement>(":scope > .subagent-card");
    if (existing?.dataset.key === key) continue;
    const next = card(progress, opener);
    next.dataset.key = key;
    if (existing) existing.replaceWith(next);
    else tool.querySelector(":scope > .tool-head")?.after(next);
  }
}
