import { Agent, retryAnswer } from "../../../agent/index.js";
import type {
  Answerer,
  ConfirmResult,
  DecisionChannel,
  InputEvent,
  UserConfirmResult,
} from "../../../event/index.js";
import type { Msg, ToolResultBlock } from "../../../message/index.js";
import type { ConfirmAnswer, CreateSessionOptions } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";
import type { ServiceBackend, SessionRecord, SessionRecordPage } from "../backend/types.js";
import { RequestError, sessionNotFound } from "../request-error.js";
import {
  confirmInput,
  confirmResultsInput,
  externalResultsInput,
  interruptInput,
  waitingReplyId,
} from "./answer-inputs.js";
import { answeredAs } from "./confirm-answers.js";
import { createSession } from "./create-session.js";
import { DeadlineIndex } from "./deadline-index.js";
import { deadlineSweep, type ExpiryOutcome, expireSession } from "./deadline-sweep.js";
import { FollowClock, tickFor } from "./follow-clock.js";
import { followerItems } from "./follow-events.js";
import { Follower, type FollowItem, type FollowOptions } from "./follower.js";
import { handoffTurns } from "./handoff-turns.js";
import { LeaseRenewals } from "./lease-renewals.js";
import { logEndsOpen, type RecoveryOutcome, recoverSession } from "./recover-session.js";
import { recoverySweep } from "./recovery-sweep.js";
import { type LocalRun, type RunHandle, type RunInput, startRun } from "./run-execution.js";
import { RunSlots } from "./run-slots.js";
import { type RuntimeLink, runtimeLinksOf } from "./runtime-links.js";
import { type ServiceLog, silentLog } from "./service-log.js";
import type { AnswerHow, FollowSessionOptions, ServiceRuntimeOptions } from "./service-runtime-options.js";
import { SessionFeeds } from "./session-feed.js";
import { type SessionStatus, sessionStatus } from "./session-status.js";
import { SessionTimeTravel } from "./session-time-travel.js";
import { StoreClock, withClock } from "./store-clock.js";
import { StreamSlots } from "./stream-slots.js";
import { Sweeper } from "./sweeper.js";

export type {
  AnswerHow,
  FollowSessionOptions,
  ServiceAgentOptions,
  ServiceRuntimeOptions,
} from "./service-runtime-options.js";
/** A session's options (the id may be an AG-UI threadId) and a confirmation's answers: the protocol's types. */
export type { ConfirmAnswer, CreateSessionOptions };

/**
 * The agent service without HTTP: sessions owned by users, replies that run server-side under a
 * cross-replica lock and log every event, and followers that read that log from any event id.
 * Every method takes the calling user; another user's session is "not found".
 * Refusals are RequestErrors with a kind (`not_found`, `conflict`, `invalid_state`, `run_in_progress`,
 * `rate_limit`, ...), never an HTTP status: the HTTP edge maps kinds to codes (`ANSWER_OF_KIND`).
 * The HTTP routes, the AG-UI endpoint and the CLI all drive the service through this object.
 */
export class ServiceRuntime {
  readonly backend: ServiceBackend;
  /** The event streams open on this replica, counted per user (every SSE route takes a slot). */
  readonly streams: StreamSlots;
  readonly #agents = new Map<string, Agent>();
  readonly #defaultAgent: string;
  readonly #runs = new Map<string, LocalRun>();
  /** Who started each run of this replica, by its `done` promise (a follower's `until`). */
  readonly #starters = new WeakMap<Promise<unknown>, { user: string; sessionId: string }>();
  readonly #heartbeatMs: number;
  /** One timer renewing the leases this replica holds, each a period after the last; none for in-process locks (they never expire). */
  readonly #renewals: LeaseRenewals | undefined;
  readonly #slots: RunSlots;
  readonly #recoverCheckMs: number;
  readonly #resumeOnRecovery: boolean;
  readonly #onSessionDeleted: ServiceRuntimeOptions["onSessionDeleted"];
  /** Followers in this process share reads and event items per session, and one timer. */
  readonly #feeds: SessionFeeds;
  readonly #clock: FollowClock;
  readonly #log: ServiceLog;
  readonly #rolesOf: ServiceRuntimeOptions["rolesOf"];
  /** The store's clock: pause deadlines are set and judged by it. */
  readonly #storeClock: StoreClock;
  readonly #deadlines: DeadlineIndex;
  /** Parts wired at config time that follow the runs (sub-agent sessions: docs/multi-agent.md). */
  readonly #links: RuntimeLink[];
  /** Timed work of this replica: the recovery of abandoned runs, the expiry of pause deadlines. */
  readonly sweeper: Sweeper;
  /** Checkpoints, rewind and fork; undefined when the service runs without `checkpoints`. */
  readonly timeTravel: SessionTimeTravel | undefined;

  constructor(options: ServiceRuntimeOptions) {
    if (options.agents.length === 0) throw new TypeError("ServiceRuntime needs at least one agent");
    this.backend = options.backend;
    this.#storeClock = new StoreClock(options.backend);
    this.#deadlines = new DeadlineIndex(options.backend);
    this.streams = new StreamSlots(options.streams);
    // Each run passes its own checkpoint with the call (see startRun): one Agent serves many sessions.
    for (const definition of options.agents) {
      if (this.#agents.has(definition.name)) throw new TypeError(`two agents are named "${definition.name}"`);
      this.#agents.set(definition.name, new Agent(withClock(definition, this.#storeClock)));
    }
    this.#defaultAgent = options.agents[0]!.name;
    this.#heartbeatMs = options.heartbeatMs ?? 15_000;
    const ttl = options.backend.lockTtlMs;
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
            options.backend.locks.renewMany?.bind(options.backend.locks),
          );
    this.#slots = new RunSlots({
      ...options.limits,
      ...(options.maxConcurrentRuns ? { maxConcurrentRuns: options.maxConcurrentRuns } : {}),
    });
    this.#recoverCheckMs = options.recoverCheckMs ?? 5_000;
    this.#resumeOnRecovery = options.resumeOnRecovery ?? false;
    this.#onSessionDeleted = options.onSessionDeleted;
    this.#feeds = new SessionFeeds(options.backend);
    this.#clock = new FollowClock(tickFor(this.#heartbeatMs, this.#recoverCheckMs, options.backend.pollMs));
    this.#log = options.log ?? silentLog;
    this.timeTravel =
      options.checkpoints && new SessionTimeTravel(options.backend, options.checkpoints, this.#log);
    this.#rolesOf = options.rolesOf;
    this.#links = runtimeLinksOf(options.agents);
    for (const link of this.#links) link.attach(this);
    this.sweeper = new Sweeper(options.sweepEveryMs ?? 5_000, (job, error) =>
      this.#log({ level: "error", message: `${job.name}: ${(error as Error).message}` }),
    );
    const recovery = recoverySweep(options.backend, (sessionId) => this.#sweepSession(sessionId));
    if (recovery) this.sweeper.register(recovery);
    for (const link of this.#links) for (const job of link.sweepJobs?.() ?? []) this.sweeper.register(job);
    if (options.agents.some((agent) => agent.approvers?.policies.some((p) => p.expiresAfterMs !== undefined)))
      this.sweeper.register(
        deadlineSweep(this.#deadlines, this.#storeClock, (sessionId, at) => this.#expire(sessionId, at)),
      );
    // a restarted replica closes the replies its last life (or any dead replica) left cut off, at once
    void this.sweeper.start();
  }

  /** Names of the agents offered; the first is the default. */
  get agentNames(): string[] {
    return [...this.#agents.keys()];
  }

  agent(name: string): Agent | undefined {
    return this.#agents.get(name);
  }

  /** Creates a session of `user` (with its first state; `conflict` when the id is taken). */
  createSession(user: string, options: CreateSessionOptions = {}): Promise<SessionRecord> {
    const { backend, timeTravel } = this;
    return createSession(
      { backend, agents: this.#agents, defaultAgent: this.#defaultAgent, timeTravel, log: this.#log },
      user,
      options,
    );
  }

  /** The session if `user` owns it; creates it when it does not exist yet (AG-UI threads). */
  async ensureSession(
    user: string,
    sessionId: string,
    options: Omit<CreateSessionOptions, "sessionId"> = {},
  ) {
    const record = await this.backend.sessions.get(sessionId);
    if (record) return this.#own(record, user, sessionId);
    try {
      return await this.createSession(user, { ...options, sessionId });
    } catch (error) {
      if (RequestError.isInstance(error) && error.info.type === "conflict")
        return this.getSession(user, sessionId);
      throw error;
    }
  }

  async getSession(user: string, sessionId: string): Promise<SessionRecord> {
    return this.#own(await this.backend.sessions.get(sessionId), user, sessionId);
  }

  async listSessions(
    user: string,
    options: { limit?: number; cursor?: string } = {},
  ): Promise<SessionRecordPage> {
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 500);
    return this.backend.sessions.list(user, { limit, ...(options.cursor ? { cursor: options.cursor } : {}) });
  }

  /** Deletes state, log and record; a running session is refused (`run_in_progress`: interrupt it first). */
  async deleteSession(user: string, sessionId: string): Promise<void> {
    const record = await this.getSession(user, sessionId);
    if (await this.backend.locks.isHeld(sessionId))
      throw new RequestError(
        "run_in_progress",
        `session "${sessionId}" is running a reply; interrupt it first`,
      );
    await this.backend.store.delete(sessionId);
    await this.backend.events.delete(sessionId);
    this.#feeds.forget(sessionId);
    await this.backend.sessions.delete(sessionId);
    await this.timeTravel?.forget(sessionId);
    await this.#onSessionDeleted?.(record);
  }

  /** The session's messages, as the agent keeps them (one assistant Msg per reply). */
  async messages(user: string, sessionId: string): Promise<Msg[]> {
    await this.getSession(user, sessionId);
    return (await this.#load(sessionId)).context;
  }

  /**
   * Where the session stands; a reply whose run died is closed first, so every backend says the same.
   * `record`: the session's record when the caller has just read it (and checked its owner).
   */
  async status(user: string, sessionId: string, record?: SessionRecord): Promise<SessionStatus> {
    if (!record || record.sessionId !== sessionId || record.owner !== user)
      record = await this.getSession(user, sessionId);
    const read = () =>
      Promise.all([
        this.#load(sessionId),
        this.backend.locks.isHeld(sessionId),
        this.backend.events.lastSeq(sessionId),
      ]);
    let [state, running, last] = await read();
    const cutOff = state.replyContext !== undefined && !state.replyContext.waitingFor;
    if (!running && (cutOff || (await logEndsOpen(this.backend, sessionId)))) {
      await this.recover(sessionId);
      [state, running, last] = await read();
    }
    return sessionStatus(state, record.agent, running, last);
  }

  /**
   * Closes the session's reply if the run that owned it is gone (lease expired, or its process on
   * this host died): open blocks end, unfinished calls get `interrupted` results, REPLY_END
   * `interrupted` is logged for every follower. With `resumeOnRecovery`, a new reply then continues.
   * Followers, `status` and the next run call it; calling it any time is safe.
   */
  async recover(sessionId: string, options: { abandoned?: boolean } = {}): Promise<RecoveryOutcome> {
    if (this.#runs.has(sessionId)) return "running";
    const outcome = await recoverSession(this.backend, sessionId, options);
    if (outcome === "closed") {
      this.#log({
        level: "info",
        sessionId,
        message: "closed a cut-off reply (its run's lease was abandoned)",
      });
      // Idempotent effects cut off mid-run are run again with their key (the runtime's answer).
      const retry = await this.#retryOf(sessionId);
      if (retry || this.#resumeOnRecovery || (await this.#resumes(sessionId))) {
        const record = await this.backend.sessions.get(sessionId);
        if (record) await this.#run(record.owner, sessionId, retry).catch(() => {});
      }
    }
    return outcome;
  }

  async #retryOf(sessionId: string): Promise<UserConfirmResult | undefined> {
    const stored = await this.backend.store.load(sessionId);
    return stored ? retryAnswer(stored.state) : undefined;
  }

  /** The sweeper's recovery of one session whose lease was abandoned; a failure is logged, not thrown. */
  async #sweepSession(sessionId: string): Promise<RecoveryOutcome> {
    try {
      return await this.recover(sessionId, { abandoned: true });
    } catch (error) {
      this.#log({ level: "error", sessionId, message: `recovery failed: ${(error as Error).message}` });
      return "running";
    }
  }

  /** The deadline sweeper's expiry of one session's due asks, run as its owner's. */
  async #expire(sessionId: string, at: number): Promise<ExpiryOutcome> {
    const record = await this.backend.sessions.get(sessionId);
    if (!record) return "moot";
    return expireSession((input) => this.#run(record.owner, sessionId, input, record), at);
  }

  /**
   * Starts a reply to `input` (new messages, or none to continue); `run_in_progress` while another run
   * holds it. `how.idempotencyKey`: a repeated request with the same key gets the first one's run.
   */
  startReply(
    user: string,
    sessionId: string,
    input: Msg[] | undefined,
    how: AnswerHow = {},
  ): Promise<RunHandle> {
    return this.#run(user, sessionId, input, undefined, how.idempotencyKey);
  }

  /** Resumes a paused reply with an answer; its records name `user` and `via`, whatever `input` says. */
  answer(user: string, sessionId: string, input: InputEvent, how: AnswerHow = {}): Promise<RunHandle> {
    const by = this.#answerer(user, how.via);
    return this.#run(user, sessionId, answeredAs(input, by), undefined, how.idempotencyKey);
  }

  /** Answers waiting confirmations by tool call id; a call not waiting is refused, nothing changes. */
  async confirm(
    user: string,
    sessionId: string,
    answers: ConfirmAnswer[],
    replyId?: string,
    how: AnswerHow = {},
  ): Promise<RunHandle> {
    // The answers become confirm results against the state the run loads (under its lease).
    const input = confirmInput(answers, replyId, this.#answerer(user, how.via));
    return this.#run(user, sessionId, input, undefined, how.idempotencyKey);
  }

  /** Answers waiting confirmations with USER_CONFIRM_RESULT's own form (the calls given in full). */
  confirmResults(
    user: string,
    sessionId: string,
    confirmResults: ConfirmResult[],
    replyId?: string,
    how: AnswerHow = {},
  ): Promise<RunHandle> {
    const input = confirmResultsInput(confirmResults, replyId, this.#answerer(user, how.via));
    return this.#run(user, sessionId, input, undefined, how.idempotencyKey);
  }

  /** Sends the results of calls that were submitted for external execution. */
  async submitResults(
    user: string,
    sessionId: string,
    toolResults: ToolResultBlock[],
    replyId?: string,
    how: AnswerHow = {},
  ): Promise<RunHandle> {
    const input = externalResultsInput(toolResults, replyId, this.#answerer(user, how.via));
    return this.#run(user, sessionId, input, undefined, how.idempotencyKey);
  }

  /** The reply id an answer goes to, when the client did not say. */
  async replyIdOf(user: string, sessionId: string): Promise<string> {
    await this.getSession(user, sessionId);
    return waitingReplyId(await this.#load(sessionId));
  }

  /**
   * Interrupts the session's reply: a running one is aborted (on whichever replica runs it); a paused
   * one is ended with USER_INTERRUPT. Nothing to interrupt: `invalid_state`. `how.idempotencyKey`:
   * a repeat of the interrupt that ended a paused reply gets that run again, and ends nothing.
   */
  async interrupt(
    user: string,
    sessionId: string,
    reason = "interrupted by the user",
    how: Pick<AnswerHow, "idempotencyKey"> = {},
  ): Promise<{ was: "running" | "paused"; run?: RunHandle }> {
    const record = await this.getSession(user, sessionId);
    const local = this.#runs.get(sessionId);
    if (local) {
      local.abort(reason);
      return { was: "running", run: local.handle };
    }
    if (await this.backend.locks.isHeld(sessionId)) {
      await this.backend.bus.publish({ sessionId, kind: "interrupt", reason });
      return { was: "running" };
    }
    const run = await this.#run(
      user,
      sessionId,
      interruptInput(sessionId, reason),
      record,
      how.idempotencyKey,
    );
    return { was: "paused", run };
  }

  /** The session's events after `after`, then live ones until the signal aborts (or `until`). */
  async follow(
    user: string,
    sessionId: string,
    options: FollowSessionOptions,
  ): Promise<AsyncGenerator<FollowItem>> {
    return followerItems(await this.openFollower(user, sessionId, options));
  }

  /**
   * `follow`'s follower itself, not yet started: `follower.start(sink)` delivers into a callback sink
   * (what the SSE routes do: no async generator per stream).
   */
  async openFollower(user: string, sessionId: string, options: FollowSessionOptions): Promise<Follower> {
    // Following a run the same user just started here: its start checked the session's owner.
    const starter = options.until && this.#starters.get(options.until);
    if (!starter || starter.user !== user || starter.sessionId !== sessionId) {
      await this.getSession(user, sessionId);
    }
    const follow: FollowOptions = {
      after: options.after ?? 0,
      signal: options.signal,
      heartbeatMs: this.#heartbeatMs,
      feeds: this.#feeds,
      clock: this.#clock,
    };
    if (options.until) follow.until = options.until;
    if (options.until && this.#runs.has(sessionId)) {
      // A follower of this replica's own run hears every append on the in-process bus (no polling),
      // and the run's end ends it (no liveness checks: the run cannot die elsewhere).
      follow.pollMs = Number.POSITIVE_INFINITY;
    } else {
      follow.watch = { everyMs: this.#recoverCheckMs, check: () => this.recover(sessionId) };
    }
    return new Follower(this.backend, sessionId, follow);
  }

  /** Waits for this replica's runs to finish their current step, then closes the backend. */
  async close(): Promise<void> {
    await this.sweeper.stop();
    for (const run of this.#runs.values()) run.abort("the server is shutting down");
    await Promise.allSettled([...this.#runs.values()].map((run) => run.handle.done));
    await Promise.allSettled([...this.#agents.values()].map((agent) => agent.toolkit.close()));
    await this.backend.close();
    await this.timeTravel?.close();
  }

  /** Starts a run of `input`; `record`: the session's record, when the caller has just read it. */
  async #run(
    user: string,
    sessionId: string,
    input: RunInput,
    record?: SessionRecord,
    idempotencyKey?: string,
  ): Promise<RunHandle> {
    record ??= await this.getSession(user, sessionId);
    const agent = this.#agents.get(record.agent);
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
          backend: this.backend,
          agent,
          turns: handoffTurns(this.#agents, record.agent),
          sessionId,
          renewals: this.#renewals,
          log: this.#log,
          ...(this.timeTravel
            ? { onBoundary: this.timeTravel.atBoundary.bind(this.timeTravel, sessionId) }
            : {}),
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
          onDeadline: (expiresAt) => this.#deadlines.add({ sessionId, expiresAt }),
        },
        input,
      );
    } catch (error) {
      release();
      throw error;
    }
    this.#runs.set(sessionId, run);
    this.#starters.set(run.handle.done, { user, sessionId });
    void run.handle.done.finally(() => {
      release();
      if (this.#runs.get(sessionId) === run) this.#runs.delete(sessionId);
      for (const link of this.#links) link.runEnded(sessionId);
    });
    return run.handle;
  }

  /** The user's roles, from the token configuration (none without one). */
  rolesOf(user: string): readonly string[] {
    return this.#rolesOf?.(user) ?? [];
  }

  async #resumes(sessionId: string): Promise<boolean> {
    for (const link of this.#links) if (await link.resumes(sessionId).catch(() => false)) return true;
    return false;
  }

  /** Who answers: the authenticated user, with their roles, through `via`. */
  #answerer(user: string, via: DecisionChannel = "rest"): Answerer {
    const roles = this.#rolesOf?.(user) ?? [];
    return roles.length > 0 ? { name: user, channel: via, roles: [...roles] } : { name: user, channel: via };
  }

  async #load(sessionId: string): Promise<AgentState> {
    const stored = await this.backend.store.load(sessionId);
    if (!stored) throw sessionNotFound(sessionId);
    return stored.state;
  }

  #own(record: SessionRecord | undefined, user: string, sessionId: string): SessionRecord {
    if (!record || record.owner !== user) throw sessionNotFound(sessionId);
    return record;
  }
}
