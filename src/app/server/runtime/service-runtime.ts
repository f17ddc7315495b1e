import { Agent } from "../../../agent/index.js";
import type {
  Answerer,
  ConfirmResult,
  DecisionChannel,
  InputEvent,
  UserConfirmResultEvent,
} from "../../../event/index.js";
import type { Msg, ToolResultBlock } from "../../../message/index.js";
import type { ApprovalRequest, ConfirmAnswer, CreateSessionOptions } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";
import type { ServiceBackend, SessionRecord, SessionRecordPage } from "../backend/types.js";
import { RequestError } from "../request-error.js";
import {
  confirmInput,
  confirmResultsInput,
  externalResultsInput,
  interruptInput,
  waitingReplyId,
} from "./answer-inputs.js";
import { ApproverAnswers } from "./approver-answers.js";
import { answeredAs } from "./confirm-answers.js";
import { createSession } from "./create-session.js";
import { DeadlineIndex } from "./deadline-index.js";
import { followerItems } from "./follow-events.js";
import type { Follower, FollowItem } from "./follower.js";
import { LocalRuns } from "./local-runs.js";
import { checkedAnswer } from "./nested-answers.js";
import type { RecoveryOutcome } from "./recover-session.js";
import { ReplicaFollowers } from "./replica-followers.js";
import { type RecoveryContext, recoverAndResume } from "./resume-recovered.js";
import type { RunHandle, RunInput } from "./run-execution.js";
import { RuntimeLinks } from "./runtime-links.js";
import { runtimeSweeper } from "./runtime-sweeps.js";
import { type ServiceLog, silentLog } from "./service-log.js";
import type { AnswerHow, FollowSessionOptions, ServiceRuntimeOptions } from "./service-runtime-options.js";
import { deleteOwnedSession, listOwnSessions, ownedRecord } from "./session-records.js";
import { currentStatus, loadState, type SessionStatus } from "./session-status.js";
import { SessionTimeTravel } from "./session-time-travel.js";
import { StoreClock, withClock } from "./store-clock.js";
import { StreamSlots } from "./stream-slots.js";
import type { Sweeper } from "./sweeper.js";

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
  /** The runs of this replica (their slots, lease renewals and starters). */
  readonly #runs: LocalRuns;
  readonly #onSessionDeleted: ServiceRuntimeOptions["onSessionDeleted"];
  /** Followers in this process share reads and event items per session, and one timer. */
  readonly #followers: ReplicaFollowers;
  readonly #recovery: RecoveryContext;
  readonly #log: ServiceLog;
  readonly #rolesOf: ServiceRuntimeOptions["rolesOf"];
  /** The store's clock: pause deadlines are set and judged by it. */
  readonly #storeClock: StoreClock;
  readonly #deadlines: DeadlineIndex;
  /** Named approvers answering sessions they do not own, and their inbox. */
  readonly #approvers: ApproverAnswers;
  /** Parts wired at config time that follow the runs (sub-agent sessions: docs/multi-agent.md). */
  readonly #links: RuntimeLinks<ServiceRuntime>;
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
    this.#log = options.log ?? silentLog;
    this.timeTravel =
      options.checkpoints && new SessionTimeTravel(options.backend, options.checkpoints, this.#log);
    this.#links = new RuntimeLinks(options.agents);
    this.#rolesOf = options.rolesOf;
    this.#approvers = new ApproverAnswers(
      options.backend,
      new Map(options.agents.map((agent) => [agent.name, agent.approvers])),
      (user) => this.rolesOf(user),
    );
    const { backend, timeTravel } = this;
    this.#runs = new LocalRuns(
      {
        backend,
        agents: this.#agents,
        log: this.#log,
        timeTravel,
        deadlines: this.#deadlines,
        approvals: this.#approvers.index && this.#approvers,
        links: this.#links,
      },
      options,
    );
    this.#recovery = {
      backend,
      log: this.#log,
      runs: this.#runs,
      links: this.#links,
      resumeOnRecovery: options.resumeOnRecovery ?? false,
      resume: (owner, sessionId, input) => this.#run(owner, sessionId, input),
    };
    this.#onSessionDeleted = options.onSessionDeleted;
    this.#followers = new ReplicaFollowers(backend, options);
    this.#links.attach(this);
    this.sweeper = runtimeSweeper(
      {
        backend,
        log: this.#log,
        deadlines: this.#deadlines,
        storeClock: this.#storeClock,
        recover: (sessionId, how) => this.recover(sessionId, how),
        runAsOwner: (sessionId, record, input) => this.#run(record.owner, sessionId, input, record),
      },
      options,
    );
    for (const job of this.#links.sweepJobs()) this.sweeper.register(job);
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
    if (record) return ownedRecord(record, user, sessionId);
    try {
      return await this.createSession(user, { ...options, sessionId });
    } catch (error) {
      if (RequestError.isInstance(error) && error.info.type === "conflict")
        return this.getSession(user, sessionId);
      throw error;
    }
  }

  async getSession(user: string, sessionId: string): Promise<SessionRecord> {
    return ownedRecord(await this.backend.sessions.get(sessionId), user, sessionId);
  }

  async listSessions(
    user: string,
    options: { limit?: number; cursor?: string } = {},
  ): Promise<SessionRecordPage> {
    return listOwnSessions(this.backend, user, options);
  }

  /** Deletes state, log and record; a running session is refused (`run_in_progress`: interrupt it first). */
  async deleteSession(user: string, sessionId: string): Promise<void> {
    const record = await this.getSession(user, sessionId);
    await deleteOwnedSession(this.backend, sessionId, {
      feeds: () => this.#followers.forget(sessionId),
      rest: async () => {
        await this.timeTravel?.forget(sessionId);
        await this.#onSessionDeleted?.(record);
      },
    });
  }

  /** The session's messages, as the agent keeps them (one assistant Msg per reply). */
  async messages(user: string, sessionId: string): Promise<Msg[]> {
    await this.getSession(user, sessionId);
    return (await loadState(this.backend, sessionId)).context;
  }

  /**
   * Where the session stands; a reply whose run died is closed first, so every backend says the same.
   * `record`: the session's record when the caller has just read it (and checked its owner).
   */
  async status(user: string, sessionId: string, record?: SessionRecord): Promise<SessionStatus> {
    if (!record || record.sessionId !== sessionId || record.owner !== user)
      record = await this.getSession(user, sessionId);
    return currentStatus(this.backend, sessionId, record.agent, () => this.recover(sessionId));
  }

  /**
   * Closes the session's reply if the run that owned it is gone (lease expired, or its process on
   * this host died): open blocks end, unfinished calls get `interrupted` results, REPLY_END
   * `interrupted` is logged for every follower. With `resumeOnRecovery`, a new reply then continues.
   * Followers, `status` and the next run call it; calling it any time is safe.
   */
  async recover(sessionId: string, options: { abandoned?: boolean } = {}): Promise<RecoveryOutcome> {
    return recoverAndResume(this.#recovery, sessionId, options);
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
    return this.#confirmRun(user, sessionId, input, how);
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
    return this.#confirmRun(user, sessionId, input, how);
  }

  /**
   * The asks in other users' sessions that `user` may answer as a named approver (an agent's
   * approver policy names them or one of their roles), from the index of such pauses.
   */
  approvals(user: string): Promise<ApprovalRequest[]> {
    return this.#approvers.inbox(user);
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
    return waitingReplyId(await loadState(this.backend, sessionId));
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
    const running = await this.#runs.abortRunning(sessionId, reason);
    if (running) return running;
    const input = interruptInput(sessionId, reason);
    return { was: "paused", run: await this.#run(user, sessionId, input, record, how.idempotencyKey) };
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
    const starter = options.until && this.#runs.starterOf(options.until);
    if (!starter || starter.user !== user || starter.sessionId !== sessionId) {
      await this.getSession(user, sessionId);
    }
    return this.#followers.open(sessionId, options, this.#runs.has(sessionId), () => this.recover(sessionId));
  }

  /** Waits for this replica's runs to finish their current step, then closes the backend. */
  async close(): Promise<void> {
    await this.sweeper.stop();
    await this.#runs.abortAll("the server is shutting down");
    await Promise.allSettled([...this.#agents.values()].map((agent) => agent.toolkit.close()));
    await this.backend.close();
    await this.timeTravel?.close();
  }

  /**
   * Starts a confirmation's run: the owner's as any answer; with `how.asApprover`, a named
   * approver's in a session they do not own (only for the asks their policy governs: anything else
   * is "not found", as for a stranger). Either way the answer goes to the same run and gate.
   */
  async #confirmRun(
    user: string,
    sessionId: string,
    input: (state: AgentState) => UserConfirmResultEvent,
    how: AnswerHow,
  ): Promise<RunHandle> {
    const record = await this.backend.sessions.get(sessionId);
    if (!how.asApprover || !record || record.owner === user)
      return this.#run(
        user,
        sessionId,
        input,
        record && ownedRecord(record, user, sessionId),
        how.idempotencyKey,
      );
    const checked = await this.#approvers.answerInput(user, record, input);
    // an approver's retried request finds their own first answer, never the owner's keyed runs
    const key = how.idempotencyKey === undefined ? undefined : `${how.idempotencyKey}\n${user}`;
    const handle = await this.#runs.start(user, sessionId, record, checked, key);
    return { ...handle, asApprover: true };
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
    const checked =
      input === undefined || Array.isArray(input) ? input : checkedAnswer(this.backend, sessionId, input);
    return this.#runs.start(user, sessionId, record, checked, idempotencyKey);
  }

  /** The user's roles, from the token configuration (none without one). */
  rolesOf(user: string): readonly string[] {
    return this.#rolesOf?.(user) ?? [];
  }

  /** Who answers: the authenticated user, with their roles, through `via`. */
  #answerer(user: string, via: DecisionChannel = "rest"): Answerer {
    const roles = this.#rolesOf?.(user) ?? [];
    return roles.length > 0 ? { name: user, channel: via, roles: [...roles] } : { name: user, channel: via };
  }
}
