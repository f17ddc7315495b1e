import {
  addUserMessage,
  applySessionEvent,
  confirmRequestFor,
  type EventStream,
  emptySessionView,
  loadTasks,
  localUserMessages,
  type SessionInfo,
  sessionViewFromHistory,
} from "../../../client/index.js";
import type { ContentBlock, DataBlock, Msg } from "../../../message/index.js";
import type { ApprovalDecision } from "./approvals.js";
import { client, failed, notice, state, ui } from "./console-state.js";
import { h } from "./dom.js";
import { loadLog } from "./event-log.js";
import type { FilesPanel } from "./files-panel.js";
import type { Renderer } from "./render.js";
import { addExposedSession } from "./session-tree.js";

/** What a conversation tells besides the renderer: the files panel, and the panels that follow the session. */
export interface ConversationParts {
  renderer: Renderer;
  files: FilesPanel;
  /** The studio and time travel read the session again. */
  refresh(): void;
}

const onConnectionChange = (connection: string) => {
  ui.conn.dataset.state = connection;
  ui.conn.textContent = connection === "open" ? "live" : connection === "reconnecting" ? "reconnecting…" : "";
};

/** The console's sessions and streams: opening, sending, answering, and folding what streams back. */
export class Conversation {
  constructor(private readonly parts: ConversationParts) {}

  async loadSessions(): Promise<void> {
    state.sessions = (await client.listSessions({ limit: 200 })).sessions.sort((a, b) =>
      b.createdAt.localeCompare(a.createdAt),
    );
    this.parts.renderer.sessions();
  }

  /** Reads the open session's log (for the timeline, sub-agent runs and hints) and draws what it adds. */
  async loadLog(): Promise<void> {
    if (await loadLog()) this.parts.renderer.forget(); // the tool cards that host the runs are drawn again
    this.parts.renderer.schedule();
  }

  /** Folds a stream into the view until it ends; then reloads the stored messages. */
  async consume(stream: EventStream, sessionId: string): Promise<void> {
    const { renderer } = this.parts;
    state.stream?.close();
    state.stream = stream;
    try {
      for await (const event of stream) {
        state.view = applySessionEvent(state.view, event, stream.lastEventId);
        if (addExposedSession(state.sessions, event, state.current)) renderer.sessions();
        if (event.type === "REPLY_END" && !event.source?.includes("/"))
          renderer.announce(state.view.messages.find((m) => m.id === event.replyId));
        renderer.schedule();
      }
      if (state.stream !== stream || state.current?.sessionId !== sessionId) return;
      this.parts.files.setSession(sessionId); // the reply may have written files
      const messages = await client.messages(sessionId);
      if (state.current?.sessionId !== sessionId) return;
      state.view = { ...state.view, messages };
      // A run's stream ends with its first reply; what came after (a handoff and the reply of the
      // agent handed to) is in the log: read it again.
      state.log = undefined;
      void this.loadLog().catch(failed("reading the event log failed"));
    } catch (error) {
      if (state.stream === stream) failed("the event stream failed")(error);
    } finally {
      if (state.stream === stream) state.stream = undefined;
      renderer.schedule();
      this.parts.refresh();
    }
  }

  async open(session: SessionInfo): Promise<void> {
    const { renderer } = this.parts;
    state.stream?.close();
    state.current = session;
    state.view = emptySessionView();
    state.log = undefined;
    renderer.forget();
    notice("");
    history.replaceState(null, "", `#/s/${encodeURIComponent(session.sessionId)}`);
    this.parts.files.setSession(session.sessionId);
    document.body.dataset.menu = "";
    renderer.sessions();
    renderer.schedule();
    const id = session.sessionId;
    const [messages, status, tasks] = await Promise.all([
      client.messages(id),
      client.status(id),
      loadTasks(client, id),
    ]);
    if (state.current?.sessionId !== id) return;
    state.view = sessionViewFromHistory(messages, status, tasks);
    renderer.schedule();
    this.parts.refresh();
    // The log holds what the stored messages do not: sub-agent runs and hints (and the timeline).
    void this.loadLog().catch(failed("reading the event log failed"));
    if (status.running && status.replyId) {
      // The stored copy of the reply in flight lags its events: fold it again from the top of the log.
      const run = { replyId: status.replyId, after: 0, running: status.lastEventId };
      await this.consume(client.followRun(id, run, { onConnectionChange }), id);
    }
  }

  async remove(session: SessionInfo): Promise<void> {
    await client.deleteSession(session.sessionId);
    if (state.current?.sessionId === session.sessionId) this.newChat();
    await this.loadSessions();
  }

  newChat(): void {
    state.stream?.close();
    state.current = undefined;
    state.view = emptySessionView();
    this.parts.renderer.forget();
    history.replaceState(null, "", "#");
    this.parts.files.setSession(undefined);
    this.parts.refresh();
    this.parts.renderer.sessions();
    this.parts.renderer.schedule();
    ui.input.focus();
  }

  async send(): Promise<void> {
    const text = ui.input.value.trim();
    if ((text === "" && state.attachments.length === 0) || state.busy) return;
    state.busy = true;
    this.parts.renderer.schedule();
    try {
      if (!state.current) {
        const agent = ui.agent.hidden ? undefined : ui.agent.value;
        state.current = await client.createSession({
          ...(agent ? { agent } : {}),
          title: text.slice(0, 60) || "Attachment",
        });
        history.replaceState(null, "", `#/s/${encodeURIComponent(state.current.sessionId)}`);
        void this.loadSessions();
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
      await this.consume(client.send(id, content.length > 0 ? msg : text, { onConnectionChange }), id);
    } catch (error) {
      failed("sending failed")(error);
    } finally {
      state.busy = false;
      this.parts.renderer.schedule();
    }
  }

  decide(decision: ApprovalDecision): void {
    const current = state.current;
    if (!current) return;
    const approval = state.view.pendingApprovals.find((c) => c.id === decision.toolCallId);
    const request = approval ? confirmRequestFor(approval, decision) : { answers: [decision] };
    state.view = {
      ...state.view,
      pendingApprovals: state.view.pendingApprovals.filter((c) => c.id !== decision.toolCallId),
    };
    this.parts.renderer.schedule();
    ui.input.focus();
    void this.consume(client.confirm(current.sessionId, request, { onConnectionChange }), current.sessionId);
  }

  async attach(files: FileList): Promise<void> {
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
}
