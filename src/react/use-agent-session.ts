import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import {
  type AgentScopeClient,
  addUserMessage,
  applySessionEvent,
  type ConnectionState,
  confirmRequestFor,
  type EventStream,
  emptySessionView,
  loadTasks,
  localUserMessages,
  type PendingApproval,
  type SendInput,
  type SessionView,
  type SubagentProgress,
  sessionViewFromHistory,
  subagentsOf,
} from "../client/index.js";
import type { Task } from "../event/index.js";
import type { Msg } from "../message/index.js";
import { type TimeTravel, useTimeTravel } from "./use-time-travel.js";

export interface UseAgentSessionOptions {
  client: AgentScopeClient;
  /** The session to show; undefined shows nothing (e.g. before one is chosen). */
  sessionId: string | undefined;
}

/** `loading` (history on its way), `idle`, `running` (a reply streams), `waiting` (for approvals). */
export type AgentSessionStatus = "loading" | "idle" | "running" | "waiting";

export interface AgentSession {
  messages: Msg[];
  status: AgentSessionStatus;
  pendingApprovals: PendingApproval[];
  /** The last error (a failed request, a lost stream); cleared by the next action. */
  error: Error | undefined;
  connection: ConnectionState;
  /** The session's task list (the stored state's, then every task event folded), live. */
  tasks: readonly Task[];
  /** The sub-agents its `agent_spawn` calls started: state, latest activity, exposed session. */
  subagents: SubagentProgress[];
  /** Everything folded so far (sub-agent runs, the event list for a timeline). */
  view: SessionView;
  send(input: SendInput): Promise<void>;
  /** Approves a waiting call, optionally with edited arguments (JSON text) or rules to remember. */
  approve(toolCallId: string, options?: { input?: string; rules?: string[] }): Promise<void>;
  deny(toolCallId: string, reason?: string): Promise<void>;
  /** Asks the running reply to stop. */
  stop(reason?: string): Promise<void>;
  /** Checkpoints, rewind, fork, edit-and-resend and the versions of a message (docs/time-travel.md). */
  timeTravel: TimeTravel;
}

function statusOf(view: SessionView, loading: boolean): AgentSessionStatus {
  if (loading) return "loading";
  if (view.pendingApprovals.length > 0 || view.pendingExternal.length > 0) return "waiting";
  return view.running ? "running" : "idle";
}

/**
 * One agent session in a React component: its messages (history, then every streamed event folded
 * with `applySessionEvent`), its status and waiting approvals, and the actions on it. A reply that
 * was running when the component mounted (a page reload mid-reply) is followed to its end.
 */
export function useAgentSession({ client, sessionId }: UseAgentSessionOptions): AgentSession {
  const [view, setView] = useState<SessionView>(emptySessionView);
  const [loading, setLoading] = useState(sessionId !== undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [connection, setConnection] = useState<ConnectionState>("closed");
  const stream = useRef<EventStream | undefined>(undefined);
  const [generation, setGeneration] = useState(0);
  const viewRef = useRef(view);
  viewRef.current = view;

  /** Folds a stream into the view until it ends, then reloads the stored messages. */
  const consume = useCallback(
    async (events: EventStream, id: string) => {
      stream.current?.close();
      stream.current = events;
      try {
        for await (const event of events) {
          const eventId = events.lastEventId;
          setView((current) => applySessionEvent(current, event, eventId));
        }
        if (stream.current !== events) return;
        const messages = await client.messages(id);
        setView((current) => ({ ...current, messages }));
      } catch (caught) {
        if (stream.current === events) setError(caught as Error);
      } finally {
        if (stream.current === events) stream.current = undefined;
      }
    },
    [client],
  );

  useEffect(() => {
    void generation; // a new generation (after a rewind or an edit) reads the session again
    setView(emptySessionView());
    setError(undefined);
    if (sessionId === undefined) {
      setLoading(false);
      return;
    }
    setLoading(true);
    let cancelled = false;
    (async () => {
      try {
        const [messages, status, tasks] = await Promise.all([
          client.messages(sessionId),
          client.status(sessionId),
          loadTasks(client, sessionId),
        ]);
        if (cancelled) return;
        setView(sessionViewFromHistory(messages, status, tasks));
        setLoading(false);
        if (status.running && status.replyId) {
          // Fold the reply in flight again from the top of the log (its stored copy lags).
          const run = { replyId: status.replyId, after: 0, running: status.lastEventId };
          void consume(client.followRun(sessionId, run, { onConnectionChange: setConnection }), sessionId);
        }
      } catch (caught) {
        if (!cancelled) {
          setError(caught as Error);
          setLoading(false);
        }
      }
    })();
    return () => {
      cancelled = true;
      stream.current?.close();
      stream.current = undefined;
    };
  }, [client, sessionId, consume, generation]);

  const requireSession = useCallback((): string => {
    if (sessionId === undefined) throw new TypeError("useAgentSession: no sessionId to act on");
    setError(undefined);
    return sessionId;
  }, [sessionId]);

  const send = useCallback(
    async (input: SendInput) => {
      const id = requireSession();
      setView((current) => localUserMessages(input).reduce(addUserMessage, current));
      await consume(client.send(id, input, { onConnectionChange: setConnection }), id);
    },
    [client, consume, requireSession],
  );

  const answer = useCallback(
    async (
      toolCallId: string,
      confirmed: boolean,
      extra: { input?: string; rules?: string[]; reason?: string },
    ) => {
      const id = requireSession();
      const answer = { toolCallId, confirmed, ...extra };
      const approval = viewRef.current.pendingApprovals.find((call) => call.id === toolCallId);
      const request = approval ? confirmRequestFor(approval, answer) : { answers: [answer] };
      await consume(client.confirm(id, request, { onConnectionChange: setConnection }), id);
    },
    [client, consume, requireSession],
  );

  const approve = useCallback(
    (toolCallId: string, options: { input?: string; rules?: string[] } = {}) =>
      answer(toolCallId, true, options),
    [answer],
  );
  const deny = useCallback(
    (toolCallId: string, reason?: string) =>
      answer(toolCallId, false, reason === undefined ? {} : { reason }),
    [answer],
  );
  const stop = useCallback(
    async (reason?: string) => {
      const id = requireSession();
      try {
        await client.interrupt(id, reason);
      } catch (caught) {
        setError(caught as Error);
      }
    },
    [client, requireSession],
  );

  const { messages, events, subRuns } = view;
  const subagents = useMemo(() => subagentsOf({ messages, events, subRuns }), [messages, events, subRuns]);
  const status = statusOf(view, loading);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  const timeTravel = useTimeTravel({
    client,
    sessionId,
    messages: view.messages,
    idle: status === "idle",
    reload,
    setError,
  });

  return {
    messages: view.messages,
    tasks: view.tasks,
    subagents,
    status,
    pendingApprovals: view.pendingApprovals,
    error,
    connection,
    view,
    send,
    approve,
    deny,
    stop,
    timeTravel,
  };
}
