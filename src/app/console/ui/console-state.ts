import {
  AgentScopeClient,
  type EventStream,
  emptySessionView,
  type SessionInfo,
} from "../../../client/index.js";
import type { AgentEvent } from "../../../event/types.js";
import type { DataBlock } from "../../../message/index.js";
import { byId } from "./dom.js";

/** The console's shared pieces: its client, the page's elements and what it shows now. */

export const TOKEN_KEY = "agentscope.token";
export const token = () => localStorage.getItem(TOKEN_KEY) ?? "";
export const client = new AgentScopeClient({ token });

export const ui = {
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

export const state = {
  sessions: [] as SessionInfo[],
  current: undefined as SessionInfo | undefined,
  view: emptySessionView(),
  stream: undefined as EventStream | undefined,
  attachments: [] as DataBlock[],
  /** The session's event log read from the top (for the timeline), once per opened session. */
  log: undefined as { sessionId: string; events: AgentEvent[] } | undefined,
  busy: false,
};

export function notice(text: string, kind: "error" | "info" = "error"): void {
  ui.notice.textContent = text;
  ui.notice.dataset.kind = kind;
  ui.notice.hidden = text === "";
}

export const failed = (what: string) => (error: unknown) => notice(`${what}: ${(error as Error).message}`);

/** The events of the log read for the timeline, then those this page saw after it (by event id). */
export function timelineEvents(): AgentEvent[] {
  const log = state.log?.sessionId === state.current?.sessionId ? (state.log?.events ?? []) : [];
  const known = new Set(log.map((event) => event.id));
  return [...log, ...state.view.events.filter((event) => !known.has(event.id))];
}
