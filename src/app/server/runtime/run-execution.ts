import type { Agent, CheckpointReason, ReplyInput } from "../../../agent/index.js";
import { type AgentEvent, createEvent } from "../../../event/index.js";
import { toErrorInfo } from "../../../message/index.js";
import type { AgentState } from "../../../state/index.js";
import { newestEvent } from "../backend/newest-event.js";
import type { RunLease, ServiceBackend } from "../backend/types.js";
import { RequestError, sessionNotFound } from "../request-error.js";
import { earliestDeadline } from "./deadline-index.js";
import { EventQueue } from "./event-queue.js";
import { keyed, keyedEvent, replayedRun } from "./idempotency.js";
import type { LeaseRenewals } from "./lease-renewals.js";
import { closeCutOffReply } from "./recover-session.js";
import { RUN_END_EVENTS } from "./run-end-events.js";
import type { ServiceLog } from "./service-log.js";

/** A run accepted by the service. Its events are those logged with seq > `after`. */
export interface RunHandle {
  sessionId: string;
  replyId: string;
  after: number;
  /** Resolves when the run has ended or paused, its state is saved and all its events are logged. */
  done: Promise<void>;
  /** A named approver's answer in a session they do not own: they may not follow its events. */
  asApprover?: true;
}

export interface RunContext {
  backend: ServiceBackend;
  agent: Agent;
  /**
   * Who answers: `agent`, or (a session handed off) the agent this gives for the loaded state; and
   * after each reply, the agent that answers on in the same run with the event that says so.
   */
  turns?: AgentTurns;
  sessionId: string;
  /** The runtime's renewal timer; undefined for in-process locks, which never expire. */
  renewals: LeaseRenewals | undefined;
  /** Where a run fenced off (or whose lease was lost) says so. */
  log: ServiceLog;
  /** Called at the reply's end or pause, under the lease, with the version its final save will give. */
  onBoundary?: (state: AgentState, reason: CheckpointReason, version: number) => Promise<void>;
  /**
   * The request's `Idempotency-Key`: when a run of this session already started with it (its first
   * logged event carries it), that run's handle is answered and nothing new runs.
   */
  idempotencyKey?: string;
  /** Called once a run that paused with asks that expire has logged its pause: the earliest deadline. */
  onDeadline?: (expiresAt: string) => Promise<void>;
  /**
   * Called as a run pauses asking for a confirmation, before the pause is logged, with its reply id
   * and final state (the approvals index).
   */
  onAsk?: (replyId: string, state: AgentState) => Promise<void>;
}

/** How a session's answering agent is picked and switched (handoffs: see handoff-turns.ts). */
export interface AgentTurns {
  first(state: AgentState): Agent;
  /** After a reply that did not pause: the next agent and the event marking the switch, or undefined. */
  next(state: AgentState): { agent: Agent; event: AgentEvent } | undefined;
}

/** A live run on this replica: `abort` interrupts it. */
export interface LocalRun {
  handle: RunHandle;
  abort(reason: string): void;
}

/** Why a fenced run was aborted. */
const FENCED = "the run was fenced off: its session lease no longer holds the session";

async function acquire(ctx: RunContext): Promise<RunLease> {
  // A run that just logged its last event releases the lock a moment later: wait briefly for it.
  for (let attempt = 0; ; attempt++) {
    const lease = await ctx.backend.locks.acquire(ctx.sessionId);
    if (lease) return lease;
    if (attempt === 3) {
      throw new RequestError(
        "run_in_progress",
        `session "${ctx.sessionId}" is already running a reply; wait for it to finish or interrupt it`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Starts one reply (or resumes a paused one) under the session's run lock, independent of any HTTP
 * connection. Resolves once the input is accepted (the first event exists); input errors reject and
 * change nothing. The state is saved with compare-and-set at every checkpoint, after the events
 * before it are logged; the pause/end events are logged after the final save, then the lock is freed
 * (the final save, the events around it and the release in one round trip where the backend can).
 */
/**
 * What a run answers: the input itself, or (for answers built from what the session waits for) a
 * function of the state the run loaded under its lease, so the state is read once per request.
 */
export type RunInput = ReplyInput | ((state: AgentState) => ReplyInput | Promise<ReplyInput>);

export async function startRun(ctx: RunContext, input: RunInput): Promise<LocalRun> {
  const { backend, sessionId, idempotencyKey: key } = ctx;
  // A repeated request (the same key) gets the first one's run, whether it still runs or has ended.
  const before = key === undefined ? undefined : await keyedEvent(backend, sessionId, key);
  if (before) return replayedRun(sessionId, before);
  const lease = await acquire(ctx);
  const controller = new AbortController();
  // Every write carries the lease; once the store refuses one (the lease expired, or another replica
  // took the session over) the run stops at once: no more writes, no further tool calls.
  const queue = new EventQueue(backend, sessionId, {
    lease,
    onFenced: (error) => {
      ctx.log({
        level: "warn",
        sessionId,
        message: `run fenced: ${error.message}; stopped without writing anything more`,
      });
      controller.abort(FENCED);
    },
  });
  // The last event, if it may end the run, waits for the final save; anything after it releases it.
  const held: AgentEvent[] = [];
  let replyId: string | undefined;
  let accept!: () => void;
  const accepted = new Promise<void>((resolve) => {
    accept = resolve;
  });
  // The agent hands over each event as it is emitted (no generator step per event): the first one
  // means the input was accepted.
  const onEvent = (original: AgentEvent) => {
    let event = original;
    if (replyId === undefined) {
      replyId = event.replyId;
      if (key !== undefined) event = keyed(event, key);
      accept();
    }
    if (held.length > 0) {
      for (const earlier of held) queue.push(earlier);
      held.length = 0;
    }
    if (RUN_END_EVENTS.has(event.type)) held.push(event);
    else queue.push(event);
  };
  let state: AgentState | undefined;
  let version = 0;
  let finalSave = false;
  let reply: Promise<void>;
  let after: number;
  try {
    // A reply a dead run left open is closed first (in the log and the state), by the rule recovery
    // uses; the closing events are part of this run's stream.
    const newest = await newestEvent(backend.events, sessionId);
    after = newest?.seq ?? 0;
    // Checked again under the lease: the first request's run may have logged its start meanwhile.
    const first = key === undefined ? undefined : await keyedEvent(backend, sessionId, key);
    if (first) {
      await lease.release();
      return replayedRun(sessionId, first);
    }
    const { stored } = await closeCutOffReply(backend, sessionId, { event: newest }, lease);
    if (!stored) throw sessionNotFound(sessionId);
    state = stored.state;
    version = stored.version;
    const answer = typeof input === "function" ? await input(state) : input;
    // The checkpoint goes with this call (one Agent serves many sessions). The run's last save goes
    // with its end events (EventQueue.end); the others with the events before them
    // (EventQueue.checkpoint): one round trip each on SQLite and Redis.
    const checkpoint = async (current: AgentState, reason: CheckpointReason) => {
      if (reason === "reply_end" || reason === "pause") {
        finalSave = true;
        await ctx.onBoundary?.(current, reason, version + 1);
        return;
      }
      version = await queue.checkpoint({ state: current, expectedVersion: version });
    };
    const options = { state, signal: controller.signal, checkpoint };
    const turns = ctx.turns;
    const running = state;
    reply = turns
      ? (async () => {
          await turns.first(running).replyTo(answer, onEvent, options);
          for (let turn = turns.next(running); turn; turn = turns.next(running)) {
            onEvent(turn.event);
            await turn.agent.replyTo(undefined, onEvent, options);
          }
        })()
      : ctx.agent.replyTo(answer, onEvent, options);
    // Input errors reject before any event; a reply with no event at all (nothing to interrupt) resolves.
    await Promise.race([accepted, reply]);
  } catch (error) {
    await lease.release();
    throw error;
  }
  const stopInterrupts = backend.bus.subscribe(sessionId, (message) => {
    if (message.kind === "interrupt") controller.abort(message.reason);
  });
  ctx.renewals?.add(lease, (reason) => {
    if (controller.signal.aborted) return;
    ctx.log({
      level: "warn",
      sessionId,
      message: `${reason} (generation ${lease.generation}): stopping the run`,
    });
    controller.abort(reason);
  });

  const finish = async () => {
    let failure: unknown;
    try {
      await reply;
    } catch (error) {
      failure = error;
    }
    const paused = held.some(
      (e) => e.type === "REQUIRE_USER_CONFIRM" || e.type === "REQUIRE_EXTERNAL_EXECUTION",
    );
    if (failure !== undefined && !paused && !held.some((e) => e.type === "REPLY_END")) {
      held.push(
        createEvent("REPLY_END", {
          replyId: replyId ?? "",
          finishedReason: "error",
          error: toErrorInfo(failure),
        }),
      );
    }
    // indexed before the pause is logged, so whoever sees the pause finds it in the approvals index
    // (an entry for a pause that never got saved is closed by its first reader)
    const ask = ctx.onAsk && held.find((e) => e.type === "REQUIRE_USER_CONFIRM" && e.source === undefined);
    if (ask && state)
      await ctx.onAsk!(ask.replyId, state).catch((error: Error) =>
        ctx.log({ level: "error", sessionId, message: `indexing the pause for approvers: ${error.message}` }),
      );
    try {
      const save = finalSave && state ? { state, expectedVersion: version } : undefined;
      await queue.end({ ...(save ? { save } : {}), endEvents: held, lease });
      const deadline = ctx.onDeadline && earliestDeadline(held);
      if (deadline)
        await ctx.onDeadline!(deadline).catch((error: Error) =>
          ctx.log({ level: "error", sessionId, message: `indexing the pause's deadline: ${error.message}` }),
        );
    } catch {
      // The log is unreachable: a follower will see the events the log kept.
    } finally {
      ctx.renewals?.delete(lease);
      stopInterrupts();
    }
  };
  const done = finish();
  return {
    handle: { sessionId, replyId: replyId ?? "", after, done },
    abort: (reason) => controller.abort(reason),
  };
}
