/**
 * The page's controller: sessions (list, create on first message, pick, delete), the open session's
 * messages rebuilt by folding its event stream, sending, stopping, and answering confirmations.
 * What a refresh needs is kept in localStorage: the open session, the last event id seen, and the
 * event id where the reply in flight started (its events are folded again from there).
 */
export const APP_JS = `
import { ApiError, api, followSession, getToken, sessionPath, setToken } from "./api.js";
import { applyEvent, startReply } from "./fold.js";
import { el, renderMsg } from "./view.js";

const SAVED_KEY = "agentscope.console";
const $ = (id) => document.getElementById(id);

const state = {
  agents: [],
  sessions: [],
  session: null,
  msgs: [],
  nodes: new Map(),
  dirty: new Set(),
  settled: new Set(),
  asks: new Map(),
  decisions: new Map(),
  phase: "idle",
  waitingFor: null,
  inFlight: null,
  follower: null,
  lastEventId: 0,
  replyStart: null,
};

function loadSaved() {
  try {
    return JSON.parse(localStorage.getItem(SAVED_KEY) || "{}");
  } catch (_) {
    return {};
  }
}

function save() {
  if (!state.session) return;
  localStorage.setItem(
    SAVED_KEY,
    JSON.stringify({ sessionId: state.session.sessionId, lastEventId: state.lastEventId, replyStart: state.replyStart }),
  );
}

function newId(kind) {
  return kind + "_" + Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
}

// ---- notices and connection ----

function notice(text, kind) {
  const box = $("notice");
  box.hidden = !text;
  box.textContent = text || "";
  box.dataset.kind = kind || "error";
}

function fail(error) {
  if (error instanceof ApiError && error.status === 401) {
    $("settings").hidden = false;
    notice(getToken() ? "The access token was refused. Enter a valid one." : "This server needs an access token.");
    $("token").focus();
    return;
  }
  notice(error.message || String(error));
}

function setConnection(text) {
  $("conn").textContent = text;
  $("conn").dataset.state = text;
}

// ---- rendering ----

function scheduleRender(id) {
  if (id) state.dirty.add(id);
  if (state.frame) return;
  state.frame = requestAnimationFrame(() => {
    state.frame = 0;
    render();
  });
}

const WAITING_TEXT = {
  user_confirm: "Waiting for your approval.",
  external_execution: "Waiting for an external result.",
};

function render() {
  const list = $("messages");
  const nearBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 120;
  const wanted = [];
  for (const msg of state.msgs) {
    let node = state.nodes.get(msg.id);
    const fresh = !node;
    if (fresh) {
      node = el("article");
      state.nodes.set(msg.id, node);
    }
    const live = msg.id === state.inFlight;
    if (fresh || state.dirty.has(msg.id) || live) {
      renderMsg(node, msg, {
        live: live,
        waiting: live && state.phase === "waiting" ? WAITING_TEXT[state.waitingFor] || "Waiting." : null,
        asks: state.asks,
        decisions: state.decisions,
      });
    }
    wanted.push(node);
  }
  wanted.forEach((node, i) => {
    if (list.children[i] !== node) list.insertBefore(node, list.children[i] || null);
  });
  while (list.children.length > wanted.length) list.lastChild.remove();
  state.dirty.clear();
  $("empty").hidden = state.msgs.length > 0;
  if (nearBottom) list.scrollTop = list.scrollHeight;
  renderComposer();
}

function renderComposer() {
  const busy = state.phase !== "idle";
  $("send").disabled = busy;
  $("stop").hidden = !busy;
  $("input").placeholder =
    state.phase === "waiting"
      ? "Answer the pending tool call above to continue"
      : "Message the agent (Enter to send, Shift+Enter for a new line)";
  $("title").textContent = state.session ? state.session.title || "Untitled chat" : "New chat";
  $("meta").textContent = state.session ? state.session.agent : "";
  document.body.dataset.phase = state.phase;
}

function renderSessions() {
  const ul = $("sessions");
  ul.replaceChildren();
  for (const record of state.sessions) {
    const li = el("li", record.sessionId === (state.session && state.session.sessionId) ? "session current" : "session");
    li.dataset.id = record.sessionId;
    const pick = el("button", "session-pick");
    pick.type = "button";
    pick.append(el("span", "session-title", record.title || "Untitled chat"));
    pick.append(el("span", "session-date", new Date(record.createdAt).toLocaleString()));
    const del = el("button", "session-delete", "×");
    del.type = "button";
    del.title = "Delete this chat";
    del.setAttribute("aria-label", "Delete " + (record.title || "chat"));
    li.append(pick, del);
    ul.append(li);
  }
}

// ---- sessions ----

async function loadSessions() {
  const page = await api("GET", "/v1/sessions?limit=200");
  state.sessions = page.sessions.slice().sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  renderSessions();
}

function resetView() {
  if (state.follower) state.follower.close();
  state.follower = null;
  state.msgs = [];
  state.nodes.clear();
  state.settled.clear();
  state.asks.clear();
  state.decisions.clear();
  state.phase = "idle";
  state.waitingFor = null;
  state.inFlight = null;
  state.replyStart = null;
  state.lastEventId = 0;
  $("messages").replaceChildren();
  notice("");
}

async function openSession(record) {
  resetView();
  state.session = record;
  renderSessions();
  const id = record.sessionId;
  const [history, status] = await Promise.all([
    api("GET", sessionPath(id) + "/messages"),
    api("GET", sessionPath(id) + "/status"),
  ]);
  if (!state.session || state.session.sessionId !== id) return;
  state.msgs = history.messages;
  for (const msg of state.msgs) if (msg.finishedReason !== undefined) state.settled.add(msg.id);
  const inFlight = status.running || status.waitingFor ? status.replyId : null;
  const saved = loadSaved();
  let after = status.lastEventId;
  if (inFlight) {
    state.inFlight = inFlight;
    state.phase = status.waitingFor ? "waiting" : "running";
    state.waitingFor = status.waitingFor || null;
    for (const call of status.pendingToolCalls) {
      if (call.state === "asking") state.asks.set(call.id, { suggestedRules: [call.name] });
    }
    // Fold the reply in flight again from its first event: from where this browser saw it start, or from the top.
    const start = saved.sessionId === id && saved.replyStart && saved.replyStart.replyId === inFlight;
    after = start ? Math.max(0, saved.replyStart.seq - 1) : 0;
    if (start) state.replyStart = saved.replyStart;
  }
  state.lastEventId = after;
  save();
  scheduleRender();
  state.follower = followSession(id, after, {
    onEvent: onEvent,
    onConnection: (text) => setConnection(text === "live" ? "live" : "reconnecting…"),
    onGap: () => notice("Some older events were dropped by the server; the view may miss part of this reply.", "info"),
    onFatal: fail,
  });
}

function onEvent(event, seq) {
  state.lastEventId = seq;
  if (event.source) return save();
  const id = event.replyId;
  if (event.type === "REPLY_START") {
    const index = state.msgs.findIndex((m) => m.id === id);
    if (index >= 0 && state.settled.has(id)) return save();
    const msg = startReply(event);
    if (index >= 0) state.msgs[index] = msg;
    else state.msgs.push(msg);
    state.nodes.delete(id);
    state.replyStart = { replyId: id, seq: seq };
    state.inFlight = id;
    state.phase = "running";
    save();
    return scheduleRender(id);
  }
  if (state.settled.has(id)) return save();
  const msg = state.msgs.find((m) => m.id === id);
  if (!msg) return save();
  applyEvent(msg, event);
  switch (event.type) {
    case "REQUIRE_USER_CONFIRM":
      for (const call of event.toolCalls) {
        state.asks.set(call.id, { reason: call.reason, suggestedRules: call.suggestedRules || [call.name] });
      }
      state.phase = "waiting";
      state.waitingFor = "user_confirm";
      break;
    case "REQUIRE_EXTERNAL_EXECUTION":
      state.phase = "waiting";
      state.waitingFor = "external_execution";
      break;
    case "USER_CONFIRM_RESULT":
    case "EXTERNAL_EXECUTION_RESULT":
    case "USER_INTERRUPT":
      state.inFlight = id;
      state.phase = "running";
      state.waitingFor = null;
      state.decisions.clear();
      break;
    case "REPLY_END":
      state.settled.add(id);
      state.inFlight = null;
      state.phase = "idle";
      state.waitingFor = null;
      state.replyStart = null;
      state.dirty.add(id);
      break;
  }
  save();
  scheduleRender(id);
}

async function createSession(title) {
  const body = { title: title };
  const agent = $("agent").value;
  if (agent) body.agent = agent;
  const record = await api("POST", "/v1/sessions", body);
  state.sessions.unshift(record);
  await openSession(record);
}

async function deleteSession(id, button) {
  if (button.dataset.armed !== "1") {
    button.dataset.armed = "1";
    button.textContent = "Delete?";
    setTimeout(() => {
      button.dataset.armed = "";
      button.textContent = "×";
    }, 3000);
    return;
  }
  await api("DELETE", sessionPath(id));
  state.sessions = state.sessions.filter((s) => s.sessionId !== id);
  if (state.session && state.session.sessionId === id) newChat();
  renderSessions();
}

function newChat() {
  resetView();
  state.session = null;
  localStorage.removeItem(SAVED_KEY);
  renderSessions();
  scheduleRender();
  $("input").focus();
}

// ---- actions ----

async function send(text) {
  if (!state.session) await createSession(text.slice(0, 80));
  const textBlock = { type: "text", id: newId("blk"), text: text };
  const msg = { id: newId("msg"), name: "user", role: "user", content: [textBlock], metadata: {}, createdAt: new Date().toISOString() };
  state.msgs.push(msg);
  state.settled.add(msg.id);
  state.phase = "running";
  scheduleRender(msg.id);
  try {
    await api("POST", sessionPath(state.session.sessionId) + "/replies", { input: msg });
  } catch (error) {
    state.msgs = state.msgs.filter((m) => m !== msg);
    state.nodes.delete(msg.id);
    if (!state.inFlight) state.phase = "idle";
    $("input").value = text;
    scheduleRender();
    throw error;
  }
}

const DECISIONS = {
  approve: { confirmed: true, label: "Approved" },
  deny: { confirmed: false, label: "Denied" },
  always: { confirmed: true, label: "Always allowed", always: true },
};

async function decide(callId, kind) {
  const reply = state.msgs.find((m) => m.id === state.inFlight);
  if (!reply) return;
  const choice = DECISIONS[kind];
  state.decisions.set(callId, { kind: kind, label: choice.label });
  const asking = reply.content.filter((b) => b.type === "tool_call" && b.state === "asking");
  scheduleRender(reply.id);
  if (!asking.every((call) => state.decisions.has(call.id))) return;
  const answers = asking.map((call) => {
    const d = DECISIONS[state.decisions.get(call.id).kind];
    const answer = { toolCallId: call.id, confirmed: d.confirmed };
    if (d.always) answer.rules = (state.asks.get(call.id) || {}).suggestedRules || [call.name];
    if (!d.confirmed) answer.reason = "the user denied it in the console";
    return answer;
  });
  try {
    await api("POST", sessionPath(state.session.sessionId) + "/confirm", { replyId: reply.id, answers: answers });
  } catch (error) {
    state.decisions.clear();
    scheduleRender(reply.id);
    throw error;
  }
}

async function stop() {
  if (state.session) await api("POST", sessionPath(state.session.sessionId) + "/interrupt", {});
}

// ---- wiring ----

function guard(fn) {
  return (...args) => {
    notice("");
    Promise.resolve()
      .then(() => fn(...args))
      .catch(fail);
  };
}

function wire() {
  const sendInput = guard(async () => {
    const text = $("input").value.trim();
    if (!text || state.phase !== "idle") return;
    $("input").value = "";
    await send(text);
  });
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    sendInput();
  });
  $("input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("stop").addEventListener("click", guard(stop));
  $("new-chat").addEventListener("click", newChat);
  $("sessions").addEventListener(
    "click",
    guard(async (e) => {
      const li = e.target.closest("li.session");
      if (!li) return;
      const del = e.target.closest(".session-delete");
      if (del) return deleteSession(li.dataset.id, del);
      const record = state.sessions.find((s) => s.sessionId === li.dataset.id);
      if (record) await openSession(record);
    }),
  );
  $("messages").addEventListener(
    "click",
    guard(async (e) => {
      const button = e.target.closest("button[data-decide]");
      if (button) await decide(button.dataset.call, button.dataset.decide);
    }),
  );
  $("settings-toggle").addEventListener("click", () => {
    $("settings").hidden = !$("settings").hidden;
    $("token").value = getToken();
  });
  const saveToken = guard(async () => {
    setToken($("token").value.trim());
    $("settings").hidden = true;
    await boot();
  });
  $("settings").addEventListener("submit", (e) => {
    e.preventDefault();
    saveToken();
  });
}

async function boot() {
  const agents = await api("GET", "/v1/agents");
  state.agents = agents.agents.map((a) => a.name);
  const select = $("agent");
  select.replaceChildren(...state.agents.map((name) => el("option", "", name)));
  select.hidden = state.agents.length < 2;
  await loadSessions();
  const saved = loadSaved();
  const record = state.sessions.find((s) => s.sessionId === saved.sessionId);
  if (record) await openSession(record);
  else scheduleRender();
  document.body.dataset.ready = "1";
}

wire();
guard(boot)();
`;
