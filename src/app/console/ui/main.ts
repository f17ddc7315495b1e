import {
  AgentScopeClient,
  addUserMessage,
  applySessionEvent,
  confirmRequestFor,
  type EventStream,
  emptySessionView,
  loadTasks,
  localUserMessages,
  type SessionInfo,
  type SessionView,
  type SubRun,
  sessionViewFromHistory,
  subagentsOf,
} from "../../../client/index.js";
import type { AgentEvent } from "../../../event/types.js";
import type { ContentBlock, DataBlock, HintBlock, Msg } from "../../../message/index.js";
import { type ApprovalDecision, approvalCard, type ReadWorkspaceFile } from "./approvals.js";
import { byId, h } from "./dom.js";
import { FilesPanel } from "./files-panel.js";
import { KnowledgePanel } from "./knowledge-panel.js";
import { renderMemories } from "./memories.js";
import { looseSubRuns, messageNode } from "./message-view.js";
import { addExposedSession } from "./session-tree.js";
import { renameSession, sessionList, titleOf } from "./sessions.js";
import { studioLoader } from "./studio-loader.js";
import { placeSubagentCards } from "./subagent-card.js";
import { renderTaskChecklist } from "./task-checklist.js";
import { openTestCaseDialog } from "./test-case-dialog.js";
import { TimeTravel } from "./time-travel.js";
import { timelineTable } from "./timeline.js";

const TOKEN_KEY = "agentscope.token";
const token = () => localStorage.getItem(TOKEN_KEY) ?? "";
const client = new AgentScopeClient({ token });
const filesPanel = new FilesPanel(byId("workspace-body"), client);
const knowledgePanel = new KnowledgePanel(byId("knowledge-body"), client);

const ui = {
  sessions: byId<HTMLUListElement>("sessions"),
  search: byId<HTMLInputElement>("search"),
  messages: byId("messages"),
  approvals: byId("approvals"),
  empty: byId("empty"),
  title: byId("title"),
  meta: byId("meta"),
  conn: byId("conn"),
  notice: byId("notice"),
  announce: byId("announce"),
  input: byId<HTMLTextAreaElement>("input"),
  send: byId<HTMLButtonElement>("send"),
  stop: byId<HTMLButtonElement>("stop"),
  agent: byId<HTMLSelectElement>("agent"),
  files: byId<HTMLInputElement>("files"),
  attached: byId("attached"),
  timeline: byId("timeline"),
  timelineBody: byId("timeline-body"),
};

const state = {
  sessions: [] as SessionInfo[],
  current: undefined as SessionInfo | undefined,
  view: emptySessionView(),
  stream: undefined as EventStream | undefined,
  attachments: [] as DataBlock[],
  /** The session's event log read from the top (for the timeline), once per opened session. */
  log: undefined as { sessionId: string; events: AgentEvent[] } | undefined,
  busy: false,
};

function notice(text: string, kind: "error" | "info" = "error"): void {
  ui.notice.textContent = text;
  ui.notice.dataset.kind = kind;
  ui.notice.hidden = text === "";
}

const failed = (what: string) => (error: unknown) => notice(`${what}: ${(error as Error).message}`);

// ---------- rendering (batched per frame; messages rebuilt only when their Msg changed) ----------

let frame = 0;
function scheduleRender(): void {
  if (frame === 0) frame = requestAnimationFrame(render);
}

const rendered = new Map<string, { msg: Msg; node: HTMLElement; live: boolean; hints: number }>();
const NO_HINTS: HintBlock[] = [];

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

/**
 * The sub-agent runs of the log added to the view (the stored messages hold only the top-level
 * replies, so after a reload the nesting comes from the events): runs the view already has win.
 */
function withLoggedSubRuns(view: SessionView, events: AgentEvent[]): SessionView {
  let folded = emptySessionView();
  for (const event of events)
    if (event.type === "SUBAGENT_EXPOSED" || event.source?.includes("/"))
      folded = applySessionEvent(folded, event);
  const known = new Set(view.subRuns.map((run) => run.replyId));
  const added: SubRun[] = folded.subRuns.filter((run) => !known.has(run.replyId));
  return added.length === 0 ? view : { ...view, subRuns: [...added, ...view.subRuns] };
}
let renderedApprovals: unknown;

function renderMessages(view: SessionView): void {
  const nearBottom = ui.messages.scrollHeight - ui.messages.scrollTop - ui.messages.clientHeight < 80;
  const nodes: HTMLElement[] = [];
  const hints = hintsByReply();
  for (const msg of view.messages) {
    const live = view.running && msg.id === view.activeReplyId;
    const extra = hints.get(msg.id) ?? NO_HINTS;
    const previous = rendered.get(msg.id);
    if (previous && previous.msg === msg && previous.live === live && previous.hints === extra.length) {
      nodes.push(previous.node);
      continue;
    }
    const node = messageNode(msg, view, extra);
    rendered.set(msg.id, { msg, node, live, hints: extra.length });
    nodes.push(node);
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
  const cards = view.pendingApprovals.map((call) => approvalCard(call, decide, read));
  ui.approvals.replaceChildren(...cards);
  ui.approvals.hidden = cards.length === 0;
  cards[0]?.focus({ preventScroll: true });
  return true;
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
// The card grows when its diff arrives (and the transcript shrinks with it): keep the call in view.
new ResizeObserver(revealPendingCall).observe(ui.approvals);

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

function render(): void {
  frame = 0;
  const { view, current } = state;
  renderMessages(view);
  renderTaskChecklist(byId("tasks"), view.tasks);
  placeSubagentCards(ui.messages, subagentsOf({ ...view, events: timelineEvents() }), {
    sessions: state.sessions,
    open: (session) => void openSession(session),
  });
  timeTravel.decorate(ui.messages);
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

function renderSessions(): void {
  ui.sessions.replaceChildren(
    ...sessionList(state.sessions, state.current?.sessionId, ui.search.value, {
      open: (session) => void openSession(session),
      rename: (session, title) =>
        void renameSession(client, session, title)
          .then((shown) => {
            if (state.current?.sessionId === session.sessionId) state.current.title = shown;
            renderSessions();
            scheduleRender();
          })
          .catch(failed("renaming failed")),
      remove: (session) => void removeSession(session),
    }),
  );
}

/** The live region says when a reply finished (never each delta). */
function announce(msg: Msg | undefined): void {
  if (!msg) return;
  const text = msg.content
    .map((b) => (b.type === "text" ? b.text : ""))
    .join(" ")
    .trim();
  ui.announce.textContent = `${msg.name} finished: ${text.slice(0, 160)}${text.length > 160 ? "…" : ""}`;
}

/** The events of the log read for the timeline, then those this page saw after it (by event id). */
function timelineEvents(): AgentEvent[] {
  const log = state.log?.sessionId === state.current?.sessionId ? (state.log?.events ?? []) : [];
  const known = new Set(log.map((event) => event.id));
  return [...log, ...state.view.events.filter((event) => !known.has(event.id))];
}

/** Reads the session's event log up to now, so the timeline also shows what happened before this page. */
async function loadLog(): Promise<void> {
  const current = state.current;
  if (!current || state.log?.sessionId === current.sessionId) return;
  const { lastEventId } = await client.status(current.sessionId);
  const events: AgentEvent[] = [];
  if (lastEventId > 0) {
    const stream = client.events(current.sessionId, { after: 0 });
    for await (const event of stream) {
      events.push(event);
      if (stream.lastEventId >= lastEventId) stream.close();
    }
  }
  if (state.current?.sessionId !== current.sessionId) return;
  state.log = { sessionId: current.sessionId, events };
  const view = withLoggedSubRuns(state.view, events);
  if (view !== state.view) {
    state.view = view;
    rendered.clear(); // the tool cards that host the runs are drawn again
  }
  scheduleRender();
}

const studio = studioLoader(
  byId("studio"),
  byId("studio-toggle"),
  {
    client,
    sessionId: () => state.current?.sessionId,
    events: () => loadLog().then(timelineEvents),
  },
  failed("opening the studio failed"),
);

const timeTravel = new TimeTravel(client, {
  sessionId: () => state.current?.sessionId,
  messages: () => state.view.messages,
  running: () => state.view.running || state.view.pendingApprovals.length > 0,
  reload: () => (state.current ? openSession(state.current) : Promise.resolve()),
  open: (session) => loadSessions().then(() => openSession(session)),
  notice,
  render: scheduleRender,
});

// ---------- sessions and streams ----------

async function loadSessions(): Promise<void> {
  state.sessions = (await client.listSessions({ limit: 200 })).sessions.sort((a, b) =>
    b.createdAt.localeCompare(a.createdAt),
  );
  renderSessions();
}

/** Folds a stream into the view until it ends; then reloads the stored messages. */
async function consume(stream: EventStream, sessionId: string): Promise<void> {
  state.stream?.close();
  state.stream = stream;
  try {
    for await (const event of stream) {
      state.view = applySessionEvent(state.view, event, stream.lastEventId);
      if (addExposedSession(state.sessions, event, state.current)) renderSessions();
      if (event.type === "REPLY_END" && !event.source?.includes("/"))
        announce(state.view.messages.find((m) => m.id === event.replyId));
      scheduleRender();
    }
    if (state.stream !== stream || state.current?.sessionId !== sessionId) return;
    filesPanel.setSession(sessionId); // the reply may have written files
    const messages = await client.messages(sessionId);
    if (state.current?.sessionId === sessionId) state.view = { ...state.view, messages };
  } catch (error) {
    if (state.stream === stream) failed("the event stream failed")(error);
  } finally {
    if (state.stream === stream) state.stream = undefined;
    scheduleRender();
    studio.refresh();
    timeTravel.refresh();
  }
}

const onConnectionChange = (connection: string) => {
  ui.conn.dataset.state = connection;
  ui.conn.textContent = connection === "open" ? "live" : connection === "reconnecting" ? "reconnecting…" : "";
};

async function openSession(session: SessionInfo): Promise<void> {
  state.stream?.close();
  state.current = session;
  state.view = emptySessionView();
  state.log = undefined;
  rendered.clear();
  notice("");
  history.replaceState(null, "", `#/s/${encodeURIComponent(session.sessionId)}`);
  filesPanel.setSession(session.sessionId);
  document.body.dataset.menu = "";
  renderSessions();
  scheduleRender();
  const id = session.sessionId;
  const [messages, status, tasks] = await Promise.all([
    client.messages(id),
    client.status(id),
    loadTasks(client, id),
  ]);
  if (state.current?.sessionId !== id) return;
  state.view = sessionViewFromHistory(messages, status, tasks);
  scheduleRender();
  studio.refresh();
  timeTravel.refresh();
  // The log holds what the stored messages do not: sub-agent runs and hints (and the timeline).
  void loadLog().catch(failed("reading the event log failed"));
  if (status.running && status.replyId) {
    // The stored copy of the reply in flight lags its events: fold it again from the top of the log.
    const run = { replyId: status.replyId, after: 0, running: status.lastEventId };
    await consume(client.followRun(id, run, { onConnectionChange }), id);
  }
}

async function removeSession(session: SessionInfo): Promise<void> {
  await client.deleteSession(session.sessionId);
  if (state.current?.sessionId === session.sessionId) newChat();
  await loadSessions();
}

function newChat(): void {
  state.stream?.close();
  state.current = undefined;
  state.view = emptySessionView();
  rendered.clear();
  history.replaceState(null, "", "#");
  filesPanel.setSession(undefined);
  studio.refresh();
  timeTravel.refresh();
  renderSessions();
  scheduleRender();
  ui.input.focus();
}

async function send(): Promise<void> {
  const text = ui.input.value.trim();
  if ((text === "" && state.attachments.length === 0) || state.busy) return;
  state.busy = true;
  scheduleRender();
  try {
    if (!state.current) {
      const agent = ui.agent.hidden ? undefined : ui.agent.value;
      state.current = await client.createSession({
        ...(agent ? { agent } : {}),
        title: text.slice(0, 60) || "Attachment",
      });
      history.replaceState(null, "", `#/s/${encodeURIComponent(state.current.sessionId)}`);
      void loadSessions();
    }
    const content: ContentBlock[] = [...state.attachments];
    const [local] = localUserMessages(text || " ");
    const msg: Msg = { ...(local as Msg), content: [...(text ? (local as Msg).content : []), ...content] };
    ui.input.value = "";
    state.attachments = [];
    ui.attached.replaceChildren();
    state.view = addUserMessage(state.view, msg);
    state.busy = false;
    const id = state.current.sessionId;
    await consume(client.send(id, content.length > 0 ? msg : text, { onConnectionChange }), id);
  } catch (error) {
    failed("sending failed")(error);
  } finally {
    state.busy = false;
    scheduleRender();
  }
}

function decide(decision: ApprovalDecision): void {
  const current = state.current;
  if (!current) return;
  const approval = state.view.pendingApprovals.find((c) => c.id === decision.toolCallId);
  const request = approval ? confirmRequestFor(approval, decision) : { answers: [decision] };
  state.view = {
    ...state.view,
    pendingApprovals: state.view.pendingApprovals.filter((c) => c.id !== decision.toolCallId),
  };
  scheduleRender();
  ui.input.focus();
  void consume(client.confirm(current.sessionId, request, { onConnectionChange }), current.sessionId);
}

async function attach(files: FileList): Promise<void> {
  for (const file of files) {
    const bytes = new Uint8Array(await file.arrayBuffer());
    let binary = "";
    for (let i = 0; i < bytes.length; i += 0x8000)
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    const block: DataBlock = {
      type: "data",
      id: `attachment_${Math.random().toString(36).slice(2, 10)}`,
      name: file.name,
      source: { type: "base64", mediaType: file.type || "application/octet-stream", data: btoa(binary) },
    };
    state.attachments.push(block);
    ui.attached.append(h("li", {}, `${file.name} (${Math.ceil(file.size / 1024)} KB)`));
  }
}

// ---------- wiring ----------

byId("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  void send();
});
ui.input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void send();
  }
});
ui.stop.addEventListener("click", () => {
  if (state.current)
    void client.interrupt(state.current.sessionId, "stopped in the console").catch(failed("stop failed"));
});
ui.files.addEventListener("change", () => {
  if (ui.files.files) void attach(ui.files.files).catch(failed("attaching failed"));
  ui.files.value = "";
});
ui.search.addEventListener("input", renderSessions);
ui.messages.addEventListener("click", (event) => {
  const replyId = (event.target as HTMLElement).closest<HTMLElement>("[data-save-case]")?.dataset.saveCase;
  if (replyId && state.current) openTestCaseDialog(client, state.current.sessionId, replyId);
});
byId("new-chat").addEventListener("click", newChat);
byId("menu").addEventListener("click", () => {
  const open = document.body.dataset.menu !== "open";
  document.body.dataset.menu = open ? "open" : "";
  byId("menu").setAttribute("aria-expanded", String(open));
  if (open) ui.search.focus();
});
byId("timeline-toggle").addEventListener("click", () => {
  ui.timeline.hidden = !ui.timeline.hidden;
  byId("timeline-toggle").setAttribute("aria-expanded", String(!ui.timeline.hidden));
  if (!ui.timeline.hidden) void loadLog().catch(failed("reading the event log failed"));
  scheduleRender();
});
const filesToggle = byId("workspace-toggle");
const togglePanel = (open: boolean) => {
  byId("workspace").hidden = !open;
  filesToggle.setAttribute("aria-expanded", String(open));
  if (open) filesPanel.setSession(state.current?.sessionId);
  else filesToggle.focus();
};
filesToggle.addEventListener("click", () => togglePanel(byId("workspace").hidden));
byId("workspace-close").addEventListener("click", () => togglePanel(false));
const knowledgeToggle = byId("knowledge-toggle");
const toggleKnowledge = (open: boolean) => {
  byId("knowledge").hidden = !open;
  knowledgeToggle.setAttribute("aria-expanded", String(open));
  if (open) void knowledgePanel.refresh().catch(failed("loading knowledge bases failed"));
  else knowledgeToggle.focus();
};
knowledgeToggle.addEventListener("click", () => toggleKnowledge(byId("knowledge").hidden));
byId("knowledge-close").addEventListener("click", () => toggleKnowledge(false));
byId("timeline-close").addEventListener("click", () => {
  ui.timeline.hidden = true;
  byId("timeline-toggle").setAttribute("aria-expanded", "false");
  byId("timeline-toggle").focus();
});
const tokenField = byId<HTMLInputElement>("token");
tokenField.value = token();
byId("settings").addEventListener("submit", (event) => {
  event.preventDefault();
  if (tokenField.value) localStorage.setItem(TOKEN_KEY, tokenField.value);
  else localStorage.removeItem(TOKEN_KEY);
  void start();
});
document.addEventListener("keydown", (event) => {
  // Ctrl+K (⌘+K): search chats; Escape closes the mobile menu.
  if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
    event.preventDefault();
    document.body.dataset.menu = "open";
    ui.search.focus();
  } else if (event.key === "Escape" && document.body.dataset.menu === "open") {
    document.body.dataset.menu = "";
  }
});

async function start(): Promise<void> {
  notice("");
  try {
    const agents = await client.agents();
    ui.agent.replaceChildren(...agents.map((name) => h("option", { value: name }, name)));
    ui.agent.hidden = agents.length < 2;
    await loadSessions();
    const wanted = /^#\/s\/(.+)$/.exec(location.hash)?.[1];
    const session = wanted
      ? state.sessions.find((s) => s.sessionId === decodeURIComponent(wanted))
      : undefined;
    if (session) await openSession(session);
    else scheduleRender();
  } catch (error) {
    const auth = (error as { type?: string }).type === "authentication";
    notice(
      auth
        ? "This server needs an access token: enter it under Access token."
        : `Cannot load: ${(error as Error).message}`,
    );
    if (auth) byId("settings").hidden = false;
  }
}
byId("memories-toggle").addEventListener("click", () => {
  const panel = byId("memories");
  panel.hidden = !panel.hidden;
  byId("memories-toggle").setAttribute("aria-expanded", String(!panel.hidden));
  if (!panel.hidden) void renderMemories(panel, client).catch(failed("loading memories failed"));
});
byId("settings-toggle").addEventListener("click", () => {
  byId("settings").hidden = !byId("settings").hidden;
});

void start();
