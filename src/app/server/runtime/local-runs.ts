import type { Agent } from "../../../agent/index.js";
import type { AgentState } from "../../../state/index.js";
import type { ServiceBackend, SessionRecord } from "../backend/types.js";
import { RequestError } from "../request-error.js";
import type { ApproverAnswers } from "./approver-answers.js";
import type { DeadlineIndex } from "./deadline-index.js";
import { handoffTurns } from "./handoff-turns.js";
import { LeaseRenewals } from "./lease-renewals.js";
import { type LocalRun, type RunHandle, type RunInput, startRun } from "./run-execution.js";
import { RunSlots } from "./run-slots.js";
import type { RuntimeLinks } from "./runtime-links.js";
import type { ServiceLog } from "./service-log.js";
import type { ServiceRuntimeOptions } from "./service-runtime-options.js";
import type { SessionTimeTravel } from "./session-time-travel.js";

export interface LocalRunsContext {
  backend: ServiceBackend;
  agents: ReadonlyMap<string, Agent>;
  log: ServiceLog;
  timeTravel: SessionTimeTravel | undefined;
  deadlines: DeadlineIndex;
  /** Indexes pauses that named approvers may answer; undefined when no agent names any. */
  approvals: Pick<ApproverAnswers, "paused"> | undefined;
  links: RuntimeLinks;
}

/** Who started a run of this replica: its user and session. */
export interface RunStarter {
  user: string;
  sessionId: string;
}

/**
 * The runs of this replica: each takes a run slot (per user and in all), its lease is renewed on
 * one timer, and it is known here until it ends or pauses (to abort it, and to follow it without
 * polling). A ServiceRuntime starts every run through `start`.
 */
export class LocalRuns {
  readonly #ctx: LocalRunsContext;
  readonly #runs = new Map<string, LocalRun>();
  /** Who started each run of this replica, by its `done` promise (a follower's `until`). */
  readonly #starters = new WeakMap<Promise<unknown>, RunStarter>();
  /** One timer renewing the leases this replica holds, each a period after the last; none for in-process locks (they never expire). */
  readonly #renewals: LeaseRenewals | undefined;
  readonly #slots: RunSlots;

  constructor(
    ctx: LocalRunsContext,
    options: Pick<ServiceRuntimeOptions, "renewEveryMs" | "limits" | "maxConcurrentRuns">,
  ) {
    this.#ctx = ctx;
    const ttl = ctx.backend.lockTtlMs;
    if (ttl !== undefined && options.renewEveryMs !== undefined && !(options.renewEveryMs < ttl)) {
      // renewed no sooner than the lease expires, every run would lose its lock
      throw new RangeError(
        `ServiceRuntime: renewEveryMs (${options.renewEveryMs}) must be shorter than the backend's lock TTL (${ttl} ms)`,
      );
    }
    this.#renewals =
      ttl === undefined
        ? undefined
        : new LeaseRenewals(
            options.renewEveryMs ?? Math.max(100, Math.floor(ttl / 3)),
            ctx.backend.locks.renewMany?.bind(ctx.backend.locks),
          );
    this.#slots = new RunSlots({
      ...options.limits,
      ...(options.maxConcurrentRuns ? { maxConcurrentRuns: options.maxConcurrentRuns } : {}),
    });
  }

  /**
   * Aborts the session's running reply, on whichever replica runs it (another one hears it on the
   * bus); undefined when no run holds the session.
   */
  async abortRunning(
    sessionId: string,
    reason: string,
  ): Promise<{ was: "running"; run?: RunHandle } | undefined> {
    const local = this.#runs.get(sessionId);
    if (local) {
      local.abort(reason);
      return { was: "running", run: local.handle };
    }
    if (!(await this.#ctx.backend.locks.isHeld(sessionId))) return undefined;
    await this.#ctx.backend.bus.publish({ sessionId, kind: "interrupt", reason });
    return { was: "running" };
  }

  has(sessionId: string): boolean {
    return this.#runs.has(sessionId);
  }

  /** Who started the run whose `done` this is, when it is a run of this replica. */
  starterOf(done: Promise<unknown>): RunStarter | undefined {
    return this.#starters.get(done);
  }

  /** Starts a run of `input` by `user` in the session; `record`: its record (the owner already checked). */
  async start(
    user: string,
    sessionId: string,
    record: SessionRecord,
    input: RunInput,
    idempotencyKey?: string,
  ): Promise<RunHandle> {
    const { backend, agents, log, timeTravel, deadlines, approvals, links } = this.#ctx;
    const agent = agents.get(record.agent);
    if (!agent)
      throw new RequestError(
        "invalid_state",
        `session "${sessionId}" uses agent "${record.agent}", which this server does not offer`,
      );
    const release = await this.#slots.take(user);
    let run: LocalRun;
    try {
      run = await startRun(
        {
          backend,
          agent,
          turns: handoffTurns(agents, record.agent),
          sessionId,
          renewals: this.#renewals,
          log,
          ...(timeTravel ? { onBoundary: timeTravel.atBoundary.bind(timeTravel, sessionId) } : {}),
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
          onDeadline: (expiresAt) => deadlines.add({ sessionId, expiresAt }),
          ...(approvals
            ? { onAsk: (replyId: string, state: AgentState) => approvals.paused(record, replyId, state) }
            : {}),
        },
        input,
      );
    } catch (error) {
      release();
      throw error;
    }
    this.#runs.set(sessionId, run);
    // only an owner's run may be followed without the owner check (an approver's may not)
    if (user === record.owner) this.#starters.set(run.handle.done, { user, sessionId });
    void run.handle.done.finally(() => {
      release();
      if (this.#runs.get(sessionId) === run) this.#runs.delete(sessionId);
      links.runEnded(sessionId);
    });
    return run.handle;
  }

  /** Aborts every run of this replica and waits for each to finish its current step. */
  async abortAll(reason: string): Promise<void> {
    for (const run of this.#runs.values()) run.abort(reason);
    await Promise.allSettled([...this.#runs.values()].map((run) => run.handle.done));
  }
}
