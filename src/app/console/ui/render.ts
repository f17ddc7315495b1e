import { type SessionInfo, type SessionView, subagentsOf } from "../../../client/index.js";
import type { HintBlock, Msg } from "../../../message/index.js";
import { type ApprovalDecision, approvalCard, type ReadWorkspaceFile } from "./approvals.js";
import { client, failed, state, timelineEvents, ui } from "./console-state.js";
import { byId } from "./dom.js";
import { type HandoffMark, handoffMarker, handoffsOf } from "./handoff-marks.js";
import { looseSubRuns, messageNode } from "./message-view.js";
import { renameSession, sessionList, titleOf } from "./sessions.js";
import { placeSubagentCards } from "./subagent-card.js";
import { renderTaskChecklist } from "./task-checklist.js";
import { timelineTable } from "./timeline.js";

/** What the drawn page does when the user acts on it (the conversation's actions, wired in main.ts). */
export interface RenderActions {
  open(session: SessionInfo): void;
  remove(session: SessionInfo): void;
  decide(decision: ApprovalDecision): void;
  /** Adds what is drawn over the messages once they are (the time-travel buttons). */
  decorate(messages: HTMLElement): void;
}

/** Draws the console from `state`: batched per frame; a message rebuilt only when its Msg changed. */
export interface Renderer {
  schedule(): void;
  /** Draws the sidebar's list of sessions now. */
  sessions(): void;
  /** Forgets the drawn messages (another session, or runs added to the view's tool cards). */
  forget(): void;
  /** The live region says when a reply finished (never each delta). */
  announce(msg: Msg | undefined): void;
}

const NO_HINTS: HintBlock[] = [];

/** Files larger than this are not diffed (the preview shows the call's own text). */
const MAX_DIFFED_FILE_BYTES = 512 * 1024;

/**
 * Reads a file of the session's workspace for an approval's diff: undefined when it does not exist
 * (404), null when it cannot be diffed (no workspace, outside it, too large, binary).
 */
function workspaceFileReader(sessionId: string): ReadWorkspaceFile {
  return async (path) => {
    try {
      const blob = await client.downloadWorkspaceFile(sessionId, path);
      if (blob.size > MAX_DIFFED_FILE_BYTES) return null;
      const text = await blob.text();
      return text.includes("\u0000") ? null : text;
    } catch (error) {
      const { status, message } = error as { status?: number; message?: string };
      // A missing file and a service without workspaces both answer 404: only the first is a new file.
      return status === 404 && /does not exist/.test(message ?? "") ? undefined : null;
    }
  };
}

let hintsMemo: { log: unknown; events: unknown; byReply: Map<string, HintBlock[]> } | undefined;
/**
 * The hints each reply was given (HINT_BLOCK events of the log and of this page's streams), by
 * reply id: a RAG hint is dropped from the stored reply when it ends, the log keeps it.
 */
function hintsByReply(): Map<string, HintBlock[]> {
  if (hintsMemo?.log === state.log && hintsMemo?.events === state.view.events) return hintsMemo.byReply;
  const byReply = new Map<string, HintBlock[]>();
  for (const event of timelineEvents()) {
    if (event.type !== "HINT_BLOCK" || event.source?.includes("/")) continue;
    const list = byReply.get(event.replyId) ?? [];
    list.push({ type: "hint", id: event.blockId, text: event.text });
    byReply.set(event.replyId, list);
  }
  hintsMemo = { log: state.log, events: state.view.events, byReply };
  return byReply;
}

let handoffsMemo: { log: unknown; events: unknown; marks: Map<string, HandoffMark> } | undefined;
/** The session's handoffs (CUSTOM `handoff` events of the log and of this page's streams), by reply id. */
function handoffsByReply(): Map<string, HandoffMark> {
  if (handoffsMemo?.log === state.log && handoffsMemo?.events === state.view.events)
    return handoffsMemo.marks;
  handoffsMemo = { log: state.log, events: state.view.events, marks: handoffsOf(timelineEvents()) };
  return handoffsMemo.marks;
}

/**
 * Scrolls the transcript so the call the first approval card is about shows above the card: its
 * bottom in view, or its head when it is taller than the transcript's visible part.
 */
function revealPendingCall(): void {
  const call = state.view.pendingApprovals[0];
  if (!call) return;
  const node = ui.messages.querySelector(`.tool[data-call="${CSS.escape(call.id)}"]`);
  if (!node) return;
  const box = ui.messages.getBoundingClientRect();
  const target = node.getBoundingClientRect();
  const room = box.height - 16;
  if (target.height > room || target.top < box.top + 8) ui.messages.scrollTop += target.top - box.top - 8;
  else if (target.bottom > box.bottom - 8) ui.messages.scrollTop += target.bottom - box.bottom + 8;
}

export function createRenderer(actions: RenderActions): Renderer {
  const rendered = new Map<
    string,
    { msg: Msg; node: HTMLElement; live: boolean; hints: number; named: boolean }
  >();
  /** The handoff markers drawn, by `<reply id> <agent handed to>` (kept, so the list is not redrawn). */
  const markers = new Map<string, HTMLElement>();
  let renderedApprovals: unknown;
  let frame = 0;

  function renderMessages(view: SessionView): void {
    const nearBottom = ui.messages.scrollHeight - ui.messages.scrollTop - ui.messages.clientHeight < 80;
    const nodes: HTMLElement[] = [];
    const hints = hintsByReply();
    const handoffs = handoffsByReply();
    // After a handoff, each reply says which agent wrote it.
    let named = false;
    for (const msg of view.messages) {
      const live = view.running && msg.id === view.activeReplyId;
      const extra = hints.get(msg.id) ?? NO_HINTS;
      const previous = rendered.get(msg.id);
      if (
        previous &&
        previous.msg === msg &&
        previous.live === live &&
        previous.hints === extra.length &&
        previous.named === named
      ) {
        nodes.push(previous.node);
      } else {
        const node = messageNode(msg, view, extra, named);
        rendered.set(msg.id, { msg, node, live, hints: extra.length, named });
        nodes.push(node);
      }
      const mark = handoffs.get(msg.id);
      if (!mark) continue;
      const key = `${mark.replyId} ${mark.to}`;
      const marker = markers.get(key) ?? handoffMarker(mark);
      markers.set(key, marker);
      nodes.push(marker);
      named = true;
    }
    const children = [...nodes, ...looseSubRuns(view)];
    if (
      children.length !== ui.messages.childElementCount ||
      children.some((c, i) => ui.messages.children[i] !== c)
    )
      ui.messages.replaceChildren(...children);
    if (nearBottom) ui.messages.scrollTop = ui.messages.scrollHeight;
  }

  /** Renders the approval cards when the calls waiting changed; says whether it did. */
  function renderApprovals(view: SessionView): boolean {
    if (renderedApprovals === view.pendingApprovals) return false;
    renderedApprovals = view.pendingApprovals;
    const sessionId = state.current?.sessionId;
    const read = sessionId ? workspaceFileReader(sessionId) : undefined;
    const cards = view.pendingApprovals.map((call) => approvalCard(call, actions.decide, read));
    ui.approvals.replaceChildren(...cards);
    ui.approvals.hidden = cards.length === 0;
    cards[0]?.focus({ preventScroll: true });
    return true;
  }

  function render(): void {
    frame = 0;
    const { view, current } = state;
    renderMessages(view);
    renderTaskChecklist(byId("tasks"), view.tasks);
    placeSubagentCards(ui.messages, subagentsOf({ ...view, events: timelineEvents() }), {
      sessions: state.sessions,
      open: actions.open,
    });
    actions.decorate(ui.messages);
    if (renderApprovals(view)) revealPendingCall();
    ui.empty.hidden = view.messages.length > 0 || !!current?.sessionId;
    ui.title.textContent = current ? titleOf(current) : "New chat";
    ui.meta.textContent = current ? current.agent : "";
    const phase = view.pendingApprovals.length > 0 ? "waiting" : view.running ? "running" : "idle";
    document.body.dataset.phase = phase;
    ui.stop.hidden = phase !== "running";
    ui.send.disabled = state.busy || phase !== "idle";
    if (!ui.timeline.hidden) ui.timelineBody.replaceChildren(timelineTable(timelineEvents()));
  }

  const schedule = () => {
    if (frame === 0) frame = requestAnimationFrame(render);
  };

  function renderSessions(): void {
    ui.sessions.replaceChildren(
      ...sessionList(state.sessions, state.current?.sessionId, ui.search.value, {
        open: actions.open,
        rename: (session, title) =>
          void renameSession(client, session, title)
            .then((shown) => {
              if (state.current?.sessionId === session.sessionId) state.current.title = shown;
              renderSessions();
              schedule();
            })
            .catch(failed("renaming failed")),
        remove: actions.remove,
      }),
    );
  }

  // The card grows when its diff arrives (and the transcript shrinks with it): keep the call in view.
  new ResizeObserver(revealPendingCall).observe(ui.approvals);

  return {
    schedule,
    sessions: renderSessions,
    forget: () => {
      rendered.clear();
      markers.clear();
    },
    announce(msg) {
      if (!msg) return;
      const text = msg.content
        .map((b) => (b.type === "text" ? b.text : ""))
        .join(" ")
        .trim();
      ui.announce.textContent = `${msg.name} finished: ${text.slice(0, 160)}${text.length > 160 ? "…" : ""}`;
    },
  };
}
