import { client, failed, notice, state, TOKEN_KEY, timelineEvents, token, ui } from "./console-state.js";
import { Conversation } from "./conversation.js";
import { byId, h } from "./dom.js";
import { FilesPanel } from "./files-panel.js";
import { KnowledgePanel } from "./knowledge-panel.js";
import { renderMemories } from "./memories.js";
import { createRenderer } from "./render.js";
import { studioLoader } from "./studio-loader.js";
import { openTestCaseDialog } from "./test-case-dialog.js";
import { TimeTravel } from "./time-travel.js";

// The console's parts (console-state.ts holds what they share), wired to each other here.
const filesPanel = new FilesPanel(byId("workspace-body"), client);
const knowledgePanel = new KnowledgePanel(byId("knowledge-body"), client);
const renderer = createRenderer({
  open: (session) => void conversation.open(session),
  remove: (session) => void conversation.remove(session),
  decide: (decision) => conversation.decide(decision),
  decorate: (messages) => timeTravel.decorate(messages),
});
const conversation = new Conversation({
  renderer,
  files: filesPanel,
  refresh: () => {
    studio.refresh();
    timeTravel.refresh();
  },
});
const studio = studioLoader(
  byId("studio"),
  byId("studio-toggle"),
  {
    client,
    sessionId: () => state.current?.sessionId,
    events: () => conversation.loadLog().then(timelineEvents),
  },
  failed("opening the studio failed"),
);
const timeTravel = new TimeTravel(client, {
  sessionId: () => state.current?.sessionId,
  messages: () => state.view.messages,
  running: () => state.view.running || state.view.pendingApprovals.length > 0,
  reload: () => (state.current ? conversation.open(state.current) : Promise.resolve()),
  open: (session) => conversation.loadSessions().then(() => conversation.open(session)),
  notice,
  render: () => renderer.schedule(),
});

// ---------- wiring ----------

byId("composer").addEventListener("submit", (event) => {
  event.preventDefault();
  void conversation.send();
});
ui.input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    void conversation.send();
  }
});
ui.stop.addEventListener("click", () => {
  if (state.current)
    void client.interrupt(state.current.sessionId, "stopped in the console").catch(failed("stop failed"));
});
ui.files.addEventListener("change", () => {
  if (ui.files.files) void conversation.attach(ui.files.files).catch(failed("attaching failed"));
  ui.files.value = "";
});
ui.search.addEventListener("input", renderer.sessions);
ui.messages.addEventListener("click", (event) => {
  const replyId = (event.target as HTMLElement).closest<HTMLElement>("[data-save-case]")?.dataset.saveCase;
  if (replyId && state.current) openTestCaseDialog(client, state.current.sessionId, replyId);
});
byId("new-chat").addEventListener("click", () => conversation.newChat());
byId("menu").addEventListener("click", () => {
  const open = document.body.dataset.menu !== "open";
  document.body.dataset.menu = open ? "open" : "";
  byId("menu").setAttribute("aria-expanded", String(open));
  if (open) ui.search.focus();
});
byId("timeline-toggle").addEventListener("click", () => {
  ui.timeline.hidden = !ui.timeline.hidden;
  byId("timeline-toggle").setAttribute("aria-expanded", String(!ui.timeline.hidden));
  if (!ui.timeline.hidden) void conversation.loadLog().catch(failed("reading the event log failed"));
  renderer.schedule();
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
    await conversation.loadSessions();
    const wanted = /^#\/s\/(.+)$/.exec(location.hash)?.[1];
    const session = wanted
      ? state.sessions.find((s) => s.sessionId === decodeURIComponent(wanted))
      : undefined;
    if (session) await conversation.open(session);
    else renderer.schedule();
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
