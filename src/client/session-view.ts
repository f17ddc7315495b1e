import { applyEvent } from "../event/apply-event.js";
import { applyTaskEvent } from "../event/task-fold.js";
import type { AgentEvent, RequireUserConfirmEvent } from "../event/types.js";
import type { Msg, ToolCallBlock } from "../message/index.js";
import type { Task } from "../protocol/task.js";
import { TASK_STATUSES } from "../protocol/task-names.js";
import type { AgentScopeClient } from "./client.js";
import type { SessionStatus } from "./types.js";

/** A tool call waiting for the user's yes or no (REQUIRE_USER_CONFIRM). */
export type PendingApproval = RequireUserConfirmEvent["toolCalls"][number] & {
  /** The reply that asks: the top-level one, or a sub-agent's (then `source` is its path). */
  replyId: string;
  source?: string;
};

/** A sub-agent's run inside a reply (events whose `source` is a slash path, e.g. `main/researcher`). */
export interface SubRun {
  source: string;
  replyId: string;
  /** The tool call of the parent reply that started it, when SUBAGENT_EXPOSED said so. */
  toolCallId?: string;
  /** The sub-agent's own session, when SUBAGENT_EXPOSED exposed it to the user. */
  sessionId?: string;
  msg: Msg;
}

/**
 * A session as the user sees it, folded from its history and its events with `applySessionEvent`.
 * Immutable: every fold returns a new view (and shares what did not change), so React can compare.
 */
export interface SessionView {
  messages: Msg[];
  /** The reply streaming now; its Msg is the last of `messages`. */
  activeReplyId?: string;
  running: boolean;
  pendingApprovals: PendingApproval[];
  /** Calls handed to the client to run (REQUIRE_EXTERNAL_EXECUTION). */
  pendingExternal: ToolCallBlock[];
  subRuns: SubRun[];
  /**
   * The session's task list (`AgentState.tasks`): the state's on load (`sessionViewFromHistory`),
   * then every top-level `task_updated` event folded in with `applyTaskEvent`.
   */
  tasks: readonly Task[];
  /** The last event folded (resume the event stream after it). */
  lastEventId: number;
  /** Every event folded, for a run timeline (bounded by the caller). */
  events: AgentEvent[];
}

export function emptySessionView(): SessionView {
  return {
    messages: [],
    running: false,
    pendingApprovals: [],
    pendingExternal: [],
    subRuns: [],
    tasks: [],
    lastEventId: 0,
    events: [],
  };
}

/**
 * A view from the stored history and the session's status (what a page shows after a reload).
 * The stored copy of a reply still running lags its events, so that Msg is left out: fold it again
 * from the log with `client.followRun(sessionId, { replyId, after: 0 })`. `tasks`: the state's task
 * list (`client.sessionState(id)`'s `state.tasks`), when the caller read it.
 */
export function sessionViewFromHistory(
  messages: Msg[],
  status?: SessionStatus,
  tasks: readonly Task[] = [],
): SessionView {
  const view = emptySessionView();
  view.messages = messages;
  view.tasks = tasks;
  if (!status) return view;
  view.running = status.running;
  view.lastEventId = status.lastEventId;
  if (status.running && status.replyId) {
    view.activeReplyId = status.replyId;
    view.messages = messages.filter((msg) => msg.id !== status.replyId);
    view.lastEventId = 0;
  }
  const replyId = status.replyId ?? "";
  if (status.waitingFor === "user_confirm")
    view.pendingApprovals = status.pendingToolCalls
      .filter((c) => c.state === "asking")
      .map((c) => ({ ...c, replyId }));
  if (status.waitingFor === "external_execution")
    view.pendingExternal = status.pendingToolCalls.filter((c) => c.state === "submitted");
  return view;
}

/**
 * The task list of a stored state (`client.sessionState(id)`'s `state`): its `tasks` entries that
 * look like tasks (an id, a subject, a known status); anything else is left out.
 */
export function tasksInState(state: Record<string, unknown>): Task[] {
  const tasks = Array.isArray(state.tasks) ? (state.tasks as unknown[]) : [];
  return tasks.filter((raw): raw is Task => {
    const task = (raw ?? {}) as Partial<Task>;
    return (
      typeof task.id === "string" &&
      typeof task.subject === "string" &&
      TASK_STATUSES.includes(task.status as Task["status"])
    );
  });
}

/** The session's stored task list; empty when the service does not serve the state route. */
export async function loadTasks(client: AgentScopeClient, sessionId: string): Promise<Task[]> {
  try {
    return tasksInState((await client.sessionState(sessionId)).state);
  } catch {
    return [];
  }
}

/** Adds a message the user just sent (the event stream carries only the agent's side). */
export function addUserMessage(view: SessionView, msg: Msg): SessionView {
  return { ...view, messages: [...view.messages, msg] };
}

const isSubagentEvent = (event: AgentEvent) => event.source?.includes("/") === true;

/** Folds one event (with its id in the session's log, when known) into the view. */
export function applySessionEvent(view: SessionView, event: AgentEvent, eventId?: number): SessionView {
  if (eventId !== undefined && eventId <= view.lastEventId) return view;
  const next: SessionView = { ...view, events: [...view.events, event] };
  if (eventId !== undefined) next.lastEventId = eventId;
  if (event.type === "SUBAGENT_EXPOSED") return linkSubRun(next, event);
  if (isSubagentEvent(event)) return foldSubRun(withSubagentPause(next, event), event);
  next.tasks = applyTaskEvent(view.tasks, event);
  switch (event.type) {
    case "REPLY_START":
      next.running = true;
      next.activeReplyId = event.replyId;
      next.pendingApprovals = [];
      next.pendingExternal = [];
      break;
    case "REPLY_END":
      next.running = false;
      delete next.activeReplyId;
      next.pendingApprovals = [];
      next.pendingExternal = [];
      break;
    case "REQUIRE_USER_CONFIRM":
      next.running = false;
      next.pendingApprovals = event.toolCalls.map((call) => ({ ...call, replyId: event.replyId }));
      break;
    case "REQUIRE_EXTERNAL_EXECUTION":
      next.running = false;
      next.pendingExternal = event.toolCalls;
      break;
    case "USER_CONFIRM_RESULT":
    case "EXTERNAL_EXECUTION_RESULT":
      next.running = true;
      next.activeReplyId = event.replyId;
      next.pendingApprovals = [];
      next.pendingExternal = [];
      break;
  }
  next.messages = foldIntoMessages(view.messages, event);
  return next;
}

/** Folds the event into the Msg of its reply: the last one with that id, or a new one on REPLY_START. */
function foldIntoMessages(messages: Msg[], event: AgentEvent): Msg[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const msg = messages[i] as Msg;
    if (msg.id !== event.replyId) continue;
    const folded = applyEvent(msg, event);
    if (folded === msg) return messages;
    const copy = messages.slice();
    copy[i] = folded;
    return copy;
  }
  const started = applyEvent(undefined, event);
  return started ? [...messages, started] : messages;
}

/** A sub-agent's pause pauses the run: its calls wait for the user like the top-level ones. */
function withSubagentPause(view: SessionView, event: AgentEvent): SessionView {
  switch (event.type) {
    case "REQUIRE_USER_CONFIRM":
      return {
        ...view,
        running: false,
        pendingApprovals: [
          ...view.pendingApprovals,
          ...event.toolCalls.map((call) => ({ ...call, replyId: event.replyId, source: event.source })),
        ],
      };
    case "REQUIRE_EXTERNAL_EXECUTION":
      return { ...view, running: false, pendingExternal: [...view.pendingExternal, ...event.toolCalls] };
    case "USER_CONFIRM_RESULT":
    case "EXTERNAL_EXECUTION_RESULT":
      return {
        ...view,
        running: true,
        pendingApprovals: view.pendingApprovals.filter((call) => call.replyId !== event.replyId),
      };
    default:
      return view;
  }
}

function foldSubRun(view: SessionView, event: AgentEvent): SessionView {
  const index = view.subRuns.findIndex((run) => run.replyId === event.replyId);
  const runs = view.subRuns.slice();
  if (index < 0) {
    const msg = applyEvent(undefined, event);
    if (!msg) return view;
    runs.push({ source: event.source as string, replyId: event.replyId, msg });
  } else {
    const run = runs[index] as SubRun;
    runs[index] = { ...run, msg: applyEvent(run.msg, event) };
  }
  return { ...view, subRuns: runs };
}

/**
 * SUBAGENT_EXPOSED ties a sub-agent's run to the tool call that started it. It may name the run by
 * `subReplyId`/`replyId` of the sub-agent and the parent's `toolCallId`; unknown shapes are kept
 * in `events` only.
 */
function linkSubRun(
  view: SessionView,
  event: Extract<AgentEvent, { type: "SUBAGENT_EXPOSED" }>,
): SessionView {
  const fields = event as unknown as Record<string, unknown>;
  const toolCallId = typeof fields.toolCallId === "string" ? fields.toolCallId : undefined;
  if (!toolCallId) return view;
  const replyId = typeof fields.subReplyId === "string" ? fields.subReplyId : event.replyId;
  const source = event.source ?? (typeof fields.name === "string" ? fields.name : "sub-agent");
  const sessionId = event.sessionId ? { sessionId: event.sessionId } : {};
  const runs = view.subRuns.slice();
  const index = runs.findIndex((run) => run.replyId === replyId);
  if (index >= 0) runs[index] = { ...(runs[index] as SubRun), toolCallId, ...sessionId };
  else
    runs.push({
      source,
      replyId,
      toolCallId,
      ...sessionId,
      msg: {
        id: replyId,
        name: source,
        role: "assistant",
        content: [],
        metadata: {},
        createdAt: event.createdAt,
      },
    });
  return { ...view, subRuns: runs };
}

/** The sub-agent runs started by one tool call. */
export function subRunsOf(view: SessionView, toolCallId: string): SubRun[] {
  return view.subRuns.filter((run) => run.toolCallId === toolCallId);
}
